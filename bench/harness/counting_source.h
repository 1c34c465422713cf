// CountingSource: a real broker's Source, counted. It forwards every call and
// counts the settlements by kind, so an end-to-end run is checked with the same
// SourceCounts as a run on the in-memory source. It passes the settle-in-the-
// store's-transaction seam through when the broker offers it.
#pragma once

#include <memory>
#include <string>

#include "harness/bench_source.h"
#include "idem/consumer.h"
#include "idem/source.h"

namespace idem::bench {

class CountingSource final : public ForwardingSource, public SettlesInStoreTransaction {
 public:
  explicit CountingSource(Source* inner) : ForwardingSource(inner), seam_(inner->settles_in_store_transaction()) {}

  Status Settle(const std::vector<Settlement>& settlements) override {
    Status s = inner().Settle(settlements);
    if (s.ok()) Count(settlements);
    return s;
  }

  // Offered only when the broker offers it, so that it can count those acks too.
  SettlesInStoreTransaction* settles_in_store_transaction() override { return seam_ ? this : nullptr; }
  Result<bool> AckInTransaction(StoreTx& tx, const std::vector<const Message*>& messages) override {
    return seam_->AckInTransaction(tx, messages);
  }
  // Acknowledgements written in the store's transaction never reach Settle.
  void AckCommitted(const std::vector<const Message*>& messages) override {
    seam_->AckCommitted(messages);
    counts_.acked += static_cast<int64_t>(messages.size());
  }

  SourceCounts counts() const { return counts_; }

 private:
  void Count(const std::vector<Settlement>& settlements) {
    for (const Settlement& s : settlements) switch (s.kind) {
        case Settlement::Kind::kAck: counts_.acked++; break;
        case Settlement::Kind::kPark: counts_.parked++; break;
        case Settlement::Kind::kRetry: counts_.retried++; break;
        case Settlement::Kind::kRelease: counts_.released++; break;
      }
  }

  SettlesInStoreTransaction* seam_;  // the broker's, or null
  SourceCounts counts_;
};

// A consumer of `broker` over `store` for `group`, assembled as `idem run`'s
// is, with a CountingSource on top of the broker's source; *counted points at
// it for as long as the consumer lives.
inline Result<std::unique_ptr<Consumer>> AssembleCounted(std::unique_ptr<Broker> broker, std::unique_ptr<Store> store,
                                                         const std::string& group, size_t batch_size, Env* env,
                                                         CountingSource** counted) {
  ConsumerParts parts;
  parts.broker = std::move(broker);
  parts.store = std::move(store);
  parts.decorators.push_back([counted](Source* below) -> std::unique_ptr<Source> {
    auto s = std::make_unique<CountingSource>(below);
    *counted = s.get();
    return s;
  });
  ConsumerOptions co;
  co.pipeline.consumer_group = group;
  co.pipeline.batch_size = batch_size;
  return Consumer::Assemble(std::move(parts), co, env);
}

}  // namespace idem::bench
