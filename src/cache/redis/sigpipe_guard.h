// hiredis writes with write(2), which raises SIGPIPE when Redis has closed the
// connection, and SIGPIPE's default action ends the process: a Redis crash
// would take every consumer down with it. While a guard lives, SIGPIPE is
// blocked on this thread and one raised by our own write is swallowed; the
// write then fails with EPIPE, which hiredis reports as an I/O error.
// (libpq does the same for its sockets.)
#pragma once

#include <signal.h>

namespace idem::redis {

class SigpipeGuard {
 public:
  SigpipeGuard();
  ~SigpipeGuard();
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t old_mask_;
  bool was_pending_ = false;
};

}  // namespace idem::redis
