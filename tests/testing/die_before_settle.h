// A Source that kills its process (SIGKILL) inside Settle, before any
// settlement reaches the broker: by then the pipeline's transaction has
// committed and nothing has been acknowledged or moved. For crash tests that
// fork a consumer.
#pragma once

#include <signal.h>
#include <unistd.h>

#include "idem/source.h"

namespace idem::testing {

class DieBeforeSettle final : public Source {
 public:
  explicit DieBeforeSettle(Source* inner) : inner_(inner) {}
  Result<std::vector<Message>> Poll(size_t max, int64_t wait_ms) override { return inner_->Poll(max, wait_ms); }
  Status Settle(const std::vector<Settlement>& s) override {
    kill(getpid(), SIGKILL);
    return inner_->Settle(s);
  }
  Status Abandon() override { return inner_->Abandon(); }

 private:
  Source* inner_;
};

}  // namespace idem::testing
