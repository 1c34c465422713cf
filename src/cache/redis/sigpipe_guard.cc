#include "cache/redis/sigpipe_guard.h"

#include <pthread.h>

#include <ctime>

namespace idem::redis {
namespace {

sigset_t OnlySigpipe() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGPIPE);
  return s;
}

bool SigpipePending() {
  sigset_t pending;
  sigemptyset(&pending);
  return sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
}

}  // namespace

SigpipeGuard::SigpipeGuard() {
  const sigset_t block = OnlySigpipe();
  pthread_sigmask(SIG_BLOCK, &block, &old_mask_);
  was_pending_ = SigpipePending();  // someone else's; leave it alone
}

SigpipeGuard::~SigpipeGuard() {
  if (!was_pending_ && SigpipePending()) {
    const sigset_t pipe = OnlySigpipe();
    const timespec no_wait{0, 0};
    sigtimedwait(&pipe, nullptr, &no_wait);
  }
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

}  // namespace idem::redis
