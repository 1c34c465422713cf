// What the signal handling tells the workers. Set by one thread, read by all.
#pragma once

#include <atomic>

namespace idem::service {

struct Control {
  // First SIGTERM/SIGINT: poll no more; finish, commit and settle the current batch.
  std::atomic<bool> stop{false};
  // Second signal (or the shutdown bound passed): settle nothing more; give every
  // held delivery back to the broker, which delivers it again.
  std::atomic<bool> abandon{false};
};

}  // namespace idem::service
