// CountingSource: a real broker's Source, counted. It forwards every call and
// counts the settlements by kind, so an end-to-end run is checked with the same
// SourceCounts as a run on the in-memory source. It passes the settle-in-the-
// store's-transaction seam through when the broker offers it.
#pragma once

#include "harness/bench_source.h"
#include "idem/source.h"

namespace idem::bench {

class CountingSource final : public Source, public SettlesInStoreTransaction {
 public:
  explicit CountingSource(Source* inner) : inner_(inner) {}

  Result<std::vector<Message>> Poll(size_t max_messages, int64_t max_wait_ms) override {
    return inner_->Poll(max_messages, max_wait_ms);
  }
  Status Settle(const std::vector<Settlement>& settlements) override {
    Status s = inner_->Settle(settlements);
    if (s.ok()) Count(settlements);
    return s;
  }
  Status Abandon() override { return inner_->Abandon(); }

  Result<bool> AckInTransaction(StoreTx& tx, const std::vector<const Message*>& messages) override {
    auto* seam = dynamic_cast<SettlesInStoreTransaction*>(inner_);
    return seam ? seam->AckInTransaction(tx, messages) : Result<bool>(false);
  }
  // Acknowledgements written in the store's transaction never reach Settle.
  void AckCommitted(const std::vector<const Message*>& messages) override {
    if (auto* seam = dynamic_cast<SettlesInStoreTransaction*>(inner_)) seam->AckCommitted(messages);
    counts_.acked += static_cast<int64_t>(messages.size());
  }

  SourceCounts counts() const { return counts_; }
  Source* inner() const { return inner_; }

 private:
  void Count(const std::vector<Settlement>& settlements) {
    for (const Settlement& s : settlements) switch (s.kind) {
        case Settlement::Kind::kAck: counts_.acked++; break;
        case Settlement::Kind::kPark: counts_.parked++; break;
        case Settlement::Kind::kRetry: counts_.retried++; break;
        case Settlement::Kind::kRelease: counts_.released++; break;
      }
  }

  Source* inner_;
  SourceCounts counts_;
};

}  // namespace idem::bench
