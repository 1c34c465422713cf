// Handlers: the business code that runs inside the guard's transaction.
// User guide: docs/library.md (handlers), docs/keys-and-conflicts.md (KeySpec).
//
// Thread safety: a handler runs on the thread that drives its Pipeline, and its
// HandlerContext (the message, the transaction, the payload) is valid only for
// that call. A function registered with several pipelines on several threads
// runs concurrently with itself: keep state it shares behind your own lock, or
// in the database through ctx.tx.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "idem/env.h"
#include "idem/message.h"
#include "idem/payload.h"
#include "idem/sql.h"
#include "idem/status.h"

namespace idem {

// What a handler reports. A handler may also throw: RetryableError and
// PermanentError map to those outcomes; any other exception is treated as
// retryable (it may be a glitch), so it walks the retry ladder and is parked in
// the terminal queue after the last attempt rather than looping forever.
struct HandlerResult {
  enum class Outcome { kOk, kRetryable, kPermanent };
  Outcome outcome = Outcome::kOk;
  std::string reason;   // why it failed; stored in the record and the terminal queue
  std::string summary;  // short result summary stored in the record on success

  static HandlerResult Ok(std::string summary = {}) { return {Outcome::kOk, {}, std::move(summary)}; }
  static HandlerResult Retryable(std::string reason) { return {Outcome::kRetryable, std::move(reason), {}}; }
  static HandlerResult Permanent(std::string reason) { return {Outcome::kPermanent, std::move(reason), {}}; }

  // A failed guard or statement as a handler result, with `what` the step that
  // failed: "write ledger: <status>". Bad input (InvalidArgument — a payload
  // field missing or of the wrong type —, Permanent, Corruption) is permanent;
  // everything else (the database unavailable, a lock timeout, a deadlock) is
  // retryable. An OK status is Ok(): the step succeeded.
  static HandlerResult FromStatus(const Status& status, std::string_view what);
};

struct RetryableError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct PermanentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An event a handler sends downstream through the transactional outbox.
// User guide: docs/outbox.md.
struct OutgoingMessage {
  std::string topic;
  // The business key: the relay publishes it as the broker key (Message::key)
  // on every attempt, so the downstream consumer's guard absorbs resends.
  std::string key;
  std::string payload;
  std::map<std::string, std::string> headers;
};

// Everything a handler gets for one message.
struct HandlerContext {
  const Message& message;
  // The idempotency key (group-independent). Pass it downstream, e.g. as an
  // `Idempotency-Key` header on a bank call, so the callee deduplicates too.
  const std::string& idempotency_key;
  // The store transaction the consumption record commits in. Effects written
  // here commit or roll back together with the record. Do not commit it.
  SqlTx& tx;
  Env& env;
  // The payload as the pipeline parsed it to derive the key: read fields here
  // (numbers by their exact text) rather than parsing `message.payload` again.
  const Payload& payload;
  // Which run of the handler this is for the key (1 = first), as the consumption
  // record counts them: retries and redeliveries of any copy share the count.
  int attempt = 1;

  // Adds `out` to the outbox table (idem_outbox) in `tx`: it commits with the
  // consumption record and the effects, and rolls back with them when the
  // handler fails. The relay (`idem outbox relay`) publishes it after the commit,
  // at least once, with the same business key every time. Each call adds a row
  // with its own message id (drawn from `env`). InvalidArgument without a topic
  // or a key; a store error otherwise (return it as FromStatus).
  Status Emit(const OutgoingMessage& out);
};

using HandlerFn = std::function<HandlerResult(HandlerContext&)>;

// The same handler over several messages of one batch at once (a set-based
// handler): one result per context, in the contexts' order. For handlers that
// can do a step for many messages in one statement (docs/library.md).
using BatchHandlerFn = std::function<std::vector<HandlerResult>(std::span<HandlerContext* const>)>;

// How the idempotency key is derived from a message.
//
// With `fields` set, the key is `prefix` followed by the named top-level JSON
// fields of the payload, joined by ':' (a ':' or '\' inside a value is escaped
// with '\'). Without `fields`, the producer's business key (Message::key) is used.
// If that is empty too, the message is a permanent error "no idempotency key"
// unless `allow_broker_id` is set, in which case the broker message id is used
// (protects only against redelivery of the same copy, not producer resends).
struct KeySpec {
  std::vector<std::string> fields;  // e.g. {"payment_id", "scene"}; default: none
  std::string prefix;               // default: the handler's topic, so pay and refund never share a key
  bool allow_broker_id = false;     // default false: refuse messages without a business key
};

struct HandlerSpec {
  std::string topic;  // messages with this topic go to this handler
  KeySpec key;
  HandlerFn fn;
  // Optional, beside `fn` (still required). When a batch holds two or more
  // messages for this handler, they first run together through `batch_fn`,
  // under one savepoint. Unless every result is Ok — a throw, a failure, or a
  // result count other than the contexts' — all it wrote is rolled back and
  // each message runs alone through `fn`, so a failing message still fails
  // alone and its neighbours are applied. Default: none.
  BatchHandlerFn batch_fn;
  // Fields hashed for the payload fingerprint. Default: the whole
  // payload, JSON-canonicalised (key order and whitespace do not matter).
  std::vector<std::string> fingerprint_fields;
};

}  // namespace idem
