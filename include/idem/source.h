// Source: the consuming side of a broker. It hands out bounded batches of
// messages and settles each one once the pipeline knows its fate.
// User guide: docs/brokers.md (each broker's Source, its URL and topology).
//
// Settlement is batched so every broker can do it cheaply: the embedded queue in
// one transaction, RabbitMQ with confirmed publishes then acks by delivery tag,
// Kafka by committing the highest contiguous settled offset of each partition.
//
// Contract for implementations:
//   - At least once: a message handed out by Poll and not settled (the consumer
//     died, Abandon, a lease that ran out) is delivered again, marked
//     redelivered, to this or another consumer.
//   - Each message is settled once, with one of the four kinds below. kRetry and
//     kPark must move the message durably (delay tier, dead-letter queue) BEFORE
//     the original copy is acknowledged, so a crash in between yields a
//     duplicate copy (which the guard absorbs), never a lost message.
//   - kRelease gives the message back for redelivery without a move and without
//     anything being recorded (used when nothing was decided, e.g. the database
//     is unavailable).
//   - Receipts (Message::receipt) are the Source's own: it settles by them and
//     refuses one it did not hand out. Settling a message given back by Abandon
//     does nothing.
//   - Attempts are not the Source's to count: the consumption record is the one
//     count. A Settlement carries it so the Source can show it with a dead letter.
// Thread safety: one Source per consumer thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "idem/message.h"
#include "idem/status.h"

namespace idem {

struct Settlement {
  enum class Kind {
    kAck,      // done (applied, or a duplicate): remove it for good
    kRetry,    // a retryable failure: deliver a copy again after delay_ms (the delay tier)
    kPark,     // give up: move it to the dead-letter queue with `reason`
    kRelease,  // nothing decided: give it back, deliverable again after delay_ms
  };
  const Message* message = nullptr;  // must be a message returned by Poll and not yet settled
  Kind kind = Kind::kAck;
  int64_t delay_ms = 0;  // kRetry: when to deliver again; kRelease: how long to hold it back
  std::string reason{};  // kRetry/kPark: why (stored with the message)
  // kRetry/kPark: how many times the handler has run for this message's key, as
  // the consumption record counts them (0 if it never ran: parked before any
  // run). Shown with the dead letter; never handed back as a count to trust.
  int attempts = 0;
};

class SettlesInStoreTransaction;
class ParksInStore;  // idem/store_dead_letters.h

class Source {
 public:
  virtual ~Source() = default;

  // Returns up to `max_messages` messages, waiting at most `max_wait_ms` for the
  // first one. An empty vector means nothing is ready yet.
  virtual Result<std::vector<Message>> Poll(size_t max_messages, int64_t max_wait_ms) = 0;

  // Settles messages from earlier polls. On error nothing is known to be settled
  // for sure; unsettled messages come back after their visibility timeout, and
  // the guard absorbs the copies.
  virtual Status Settle(const std::vector<Settlement>& settlements) = 0;

  // Gives back, unsettled, every message this Source handed out and has not
  // settled yet, as a consumer that dies does: the broker delivers them again
  // (to this or another consumer) with the redelivery marked. Settling one of
  // them afterwards does nothing. For a consumer that must stop without
  // acknowledging (a shutdown in the middle of a batch). The embedded queue
  // makes them ready at once; RabbitMQ closes the consuming connection, which
  // requeues them, and reconnects on the next Poll.
  virtual Status Abandon() = 0;

  // Optional capabilities, which the Pipeline asks for once, when it is built.
  // Each returns the object that provides it (usually `this`), owned by the
  // Source and living as long as it, or null for a Source without it (the
  // default). A decorator forwards what it does not change (ForwardingSource).
  virtual SettlesInStoreTransaction* settles_in_store_transaction() { return nullptr; }
  virtual ParksInStore* parks_in_store() { return nullptr; }
};

// A Source that wraps another and passes everything through, capabilities
// included: the base of a decorator, which overrides only what it changes. A
// decorator that changes how messages are settled must also decide about
// settles_in_store_transaction: acks written in the store's transaction never
// reach Settle.
// Ownership: `inner` is not owned and must outlive the decorator.
// Thread safety: that of the inner Source (one consumer thread).
class ForwardingSource : public Source {
 public:
  explicit ForwardingSource(Source* inner) : inner_(inner) {}

  Result<std::vector<Message>> Poll(size_t max_messages, int64_t max_wait_ms) override {
    return inner_->Poll(max_messages, max_wait_ms);
  }
  Status Settle(const std::vector<Settlement>& settlements) override { return inner_->Settle(settlements); }
  Status Abandon() override { return inner_->Abandon(); }
  SettlesInStoreTransaction* settles_in_store_transaction() override { return inner_->settles_in_store_transaction(); }
  ParksInStore* parks_in_store() override { return inner_->parks_in_store(); }

 protected:
  Source& inner() const { return *inner_; }

 private:
  Source* inner_;
};

class StoreTx;

// Optional, for a Source whose acknowledgements can be written through the
// store's own transaction (the embedded queue in the store's SQLite file); it
// offers it through Source::settles_in_store_transaction(). The
// pipeline then writes the acks of a batch's applied and duplicate messages
// just before it commits: effects, records and acks commit together, in one
// commit per batch, and nothing acknowledged is delivered again after a crash.
// What is not acknowledged (retries, parks, releases) still goes to Settle.
class SettlesInStoreTransaction {
 public:
  virtual ~SettlesInStoreTransaction() = default;
  // Writes the acknowledgement of `messages` (from this Source's Poll, not yet
  // settled) through `tx`. Returns false, having written nothing, when tx's
  // database does not hold this Source's messages; the pipeline then settles
  // through Settle as usual.
  virtual Result<bool> AckInTransaction(StoreTx& tx, const std::vector<const Message*>& messages) = 0;
  // The transaction that carried AckInTransaction(messages) committed: they are
  // settled. (If it rolled back, the messages are still unsettled and go to Settle.)
  virtual void AckCommitted(const std::vector<const Message*>& messages) = 0;
};

}  // namespace idem
