// RabbitMqBroker::Settle and the pending moves.
//
// Settle, for one batch:
//   1. every kAck is acked (one multiple-ack for the contiguous prefix of the
//      channel's outstanding tags) and short kReleases are nacked with requeue;
//   2. every kRetry / kPark / long kRelease becomes a pending move: a copy for
//      the wait, terminal or hold queue, built from the original delivery;
//      all pending moves are published and confirmed;
//   3. the originals of the confirmed moves are acked.
// A move that cannot be confirmed stays pending, its original unacked (so it
// is safe in the broker), and is tried again by the next Settle or Poll. If
// the broker is only slow to confirm (an alarm blocks publishers), the batch is
// held and awaited again rather than sent again.
#include <amqp.h>

#include <algorithm>
#include <set>

#include "core/bounded_text.h"
#include "source/rabbitmq/copy_fit.h"
#include "source/rabbitmq/message_codec.h"
#include "source/rabbitmq/own_copies.h"
#include "source/rabbitmq/rabbitmq_broker.h"

namespace idem::rabbitmq {

size_t RabbitMqBroker::FrameMax() {
  if (!publisher_.is_open()) return kDefaultFrameMax;
  const int negotiated = amqp_get_frame_max(publisher_.raw());
  return negotiated > 0 ? std::min<size_t>(static_cast<size_t>(negotiated), kDefaultFrameMax) : kDefaultFrameMax;
}

Status RabbitMqBroker::ParkInStore(const Message& m, const std::string& reason, int attempts, const std::string& why) {
  if (!store_dead_letters_)
    return Status::Permanent("the dead-letter copy cannot go to RabbitMQ (" + why +
                             ") and this consumer has no store to keep it in; it is given back to the queue "
                             "(consume through idem::Pipeline, which gives the source its store)");
  const std::string kept = BoundedReason(reason + " [kept in the store: the dead-letter copy cannot go to RabbitMQ: " +
                                         why + "]");
  auto id = store_dead_letters_->Park(m, kept, attempts);
  if (!id.ok())
    return Annotate(id.status(), " (keeping in the store a dead letter RabbitMQ cannot take; it is given back "
                                 "to the queue and parked again when it comes back)");
  return Status::OK();
}

void RabbitMqBroker::QueueMove(const Receipt& receipt, const Delivery& d, const Settlement& s, int64_t now,
                               std::vector<Receipt>* acks, std::vector<Receipt>* requeues, Status* why) {
  PendingMove move;
  move.receipt = receipt;
  move.kind = s.kind;
  move.copy = Outgoing::CopyOf(d.envelope.message.properties, d.envelope.message.body);
  // The copy is idem's: stamped so (own_copies.h), and a producer's
  // x-idem-* headers do not travel in it under their own names.
  if (!MadeByIdem(d.envelope.message.properties, opt_.user)) DisownProducerHeaders(move.copy->headers);
  move.copy->user_id = opt_.user;
  const Message& m = *s.message;
  const std::string reason = BoundedReason(s.reason);
  CopyFit fit;
  switch (s.kind) {
    case Settlement::Kind::kRetry:
      move.delay_ms = std::max<int64_t>(s.delay_ms, 0);
      move.delay_queue = names_.Wait(move.delay_ms);
      MakeRetryCopy(*move.copy, m, move.delay_queue, reason, s.attempts, now);
      fit = FitMoveCopy(*move.copy, FrameMax(), opt_.max_message_bytes);
      break;
    case Settlement::Kind::kRelease:
      move.delay_ms = HoldStepMs(s.delay_ms);
      move.delay_queue = names_.Hold(move.delay_ms);
      MakeHoldCopy(*move.copy, m, move.delay_queue);
      fit = FitCopy(*move.copy, {kTopicHeader}, FrameMax(), opt_.max_message_bytes);
      break;
    default:
      MakeDeadCopy(*move.copy, m, names_, reason, s.attempts, ids_.Next(), now);
      fit = FitMoveCopy(*move.copy, FrameMax(), opt_.max_message_bytes);
      move.message = m;
      move.reason = reason;
      move.attempts = s.attempts;
      break;
  }
  if (fit.fits) {
    pending_.push_back(std::move(move));
    return;
  }
  // Not even the body with idem's headers fits RabbitMQ. A dead letter is kept
  // in the store and acked; a retry or a hold goes back to the queue at once
  // (the record counts the attempt, so retries still end, in the store).
  if (s.kind == Settlement::Kind::kPark) {
    Status kept = ParkInStore(m, reason, s.attempts, fit.why_not);
    if (kept.ok()) {
      acks->push_back(receipt);
      return;
    }
    if (why->ok()) *why = kept;
  }
  requeues->push_back(receipt);
}

Status RabbitMqBroker::Settle(const std::vector<Settlement>& settlements) {
  // Resolve every receipt first, so a foreign one fails the call before anything moves.
  std::vector<Delivery*> deliveries;
  std::set<Receipt> moving;
  for (const PendingMove& p : pending_) moving.insert(p.receipt);
  // Given back by Abandon: RabbitMQ has them again; nothing to do.
  std::vector<Settlement> kept;
  for (const Settlement& s : settlements)
    if (!(s.message && abandoned_.erase(s.message->receipt))) kept.push_back(s);
  if (kept.size() != settlements.size()) return Settle(kept);
  for (const Settlement& s : settlements) {
    auto it = s.message ? in_flight_.find(s.message->receipt) : in_flight_.end();
    if (it == in_flight_.end() || moving.count(s.message->receipt))
      return Status::InvalidArgument("settlement for a message this broker did not hand out, or settled twice");
    deliveries.push_back(it->second.get());
  }
  const int64_t now = env_->NowMs();
  std::vector<Receipt> acks, requeues, forget;
  Status unmovable;  // a copy that fits nowhere, not even in the store
  for (size_t i = 0; i < settlements.size(); ++i) {
    const Settlement& s = settlements[i];
    const Receipt& receipt = s.message->receipt;
    const Delivery& d = *deliveries[i];
    // A stale delivery came on a connection that is gone: RabbitMQ has already
    // put it back and will deliver it again, and the pipeline decides again then
    // (a copy whose record says FAILED is parked again). Acting on it here would
    // only make a second copy.
    if (IsStale(d)) {
      forget.push_back(receipt);
      continue;
    }
    switch (s.kind) {
      case Settlement::Kind::kAck:
        acks.push_back(receipt);
        break;
      case Settlement::Kind::kRetry:
      case Settlement::Kind::kPark:
        QueueMove(receipt, d, s, now, &acks, &requeues, &unmovable);
        break;
      case Settlement::Kind::kRelease:
        // A short hold is a plain requeue: the pipeline backs off by itself, and a
        // hold queue for every few milliseconds would cost more than it saves.
        if (s.delay_ms >= opt_.release_min_delay_ms) QueueMove(receipt, d, s, now, &acks, &requeues, &unmovable);
        else requeues.push_back(receipt);
        break;
    }
  }
  for (const Receipt& receipt : forget) in_flight_.erase(receipt);
  // Plain acks first: they need nothing from the publisher, which may be
  // blocked; then the moves, and the acks of the originals they confirmed.
  Status acked = AckAndRequeue(acks, requeues);
  std::vector<Receipt> moved, refused;
  Status moves = FinishMoves(&moved, &refused);
  Status acked_moved = AckAndRequeue(moved, refused);
  if (!unmovable.ok()) return unmovable;
  if (!moves.ok()) return moves;
  if (!acked.ok()) return acked;
  if (!acked_moved.ok()) return acked_moved;
  if (!forget.empty())
    return Status::Unavailable(std::to_string(forget.size()) +
                               " message(s) were delivered on a RabbitMQ connection that has since been lost; "
                               "RabbitMQ delivers them again and the guard absorbs the copies");
  return Status::OK();
}

Status RabbitMqBroker::Abandon() {
  // Closing the consuming connection is RabbitMQ's way of taking deliveries
  // back: it requeues every unacked one, marked redelivered. Moves not yet
  // confirmed are dropped with their originals; a copy the broker had already
  // taken may then exist twice, which the guard absorbs (at least once).
  for (const auto& [receipt, d] : in_flight_) abandoned_.insert(receipt);
  in_flight_.clear();
  pending_.clear();
  consumer_.Close();
  return Status::OK();
}

Status RabbitMqBroker::FinishMoves(std::vector<Receipt>* acks, std::vector<Receipt>* requeues) {
  // A move whose original went stale meanwhile is dropped: the broker delivers
  // the original again (see Settle).
  std::erase_if(pending_, [&](const PendingMove& p) {
    if (!IsStale(*in_flight_.at(p.receipt))) return false;
    in_flight_.erase(p.receipt);
    return true;
  });
  if (pending_.empty()) return Status::OK();
  const std::string note = " (" + std::to_string(pending_.size()) +
                           " retry/terminal move(s) stay pending; their originals stay unacknowledged)";
  if (confirms_.holding()) {
    // A batch a blocked broker has not confirmed yet: wait for it rather than
    // send another copy of every move.
    Status s = confirms_.Resume();
    if (confirms_.holding()) return Annotate(s, note);
    const uint64_t held_by = confirms_.generation();
    if (s.ok()) {
      std::erase_if(pending_, [&](const PendingMove& p) {
        if (p.held_by != held_by) return false;
        acks->push_back(p.receipt);
        return true;
      });
    }
    for (PendingMove& p : pending_) p.held_by = 0;  // whatever is left is sent (again) now
    if (pending_.empty()) return Status::OK();
  }
  std::vector<Outgoing*> batch;
  std::vector<std::pair<std::string, int64_t>> declare;
  for (PendingMove& p : pending_) {
    batch.push_back(p.copy.get());
    if (!p.delay_queue.empty()) declare.emplace_back(p.delay_queue, p.delay_ms);
  }
  Status s = Publish(batch, declare, /*hold=*/true);
  if (confirms_.holding())
    for (PendingMove& p : pending_) p.held_by = confirms_.generation();
  // Refused for good (not a lost connection, not a blocked broker): trying the
  // same batch again would fail the same way forever, with the queue behind it.
  if (!s.ok() && !s.IsRetryable() && !s.IsInDoubt() && !confirms_.holding())
    return SettleRefusedMoves(acks, requeues);
  if (!s.ok()) return Annotate(s, note);
  for (PendingMove& p : pending_) acks->push_back(p.receipt);
  pending_.clear();
  return Status::OK();
}

Status RabbitMqBroker::SettleRefusedMoves(std::vector<Receipt>* acks, std::vector<Receipt>* requeues) {
  std::vector<PendingMove> moves = std::move(pending_);
  pending_.clear();
  Status first;
  for (PendingMove& p : moves) {
    std::vector<std::pair<std::string, int64_t>> declare;
    if (!p.delay_queue.empty()) declare.emplace_back(p.delay_queue, p.delay_ms);
    Status s = Publish({p.copy.get()}, declare);
    if (s.ok()) {
      acks->push_back(p.receipt);
      continue;
    }
    if (s.IsRetryable() || s.IsInDoubt()) {  // the connection failed meanwhile: try again later
      pending_.push_back(std::move(p));
      if (first.ok()) first = s;
      continue;
    }
    if (p.kind == Settlement::Kind::kPark) {
      Status kept = ParkInStore(p.message, p.reason, p.attempts, "RabbitMQ refused it: " + s.ToString());
      if (kept.ok()) {
        acks->push_back(p.receipt);
        continue;
      }
      if (first.ok()) first = kept;
    }
    requeues->push_back(p.receipt);
  }
  return first;
}

Status RabbitMqBroker::AckAndRequeue(const std::vector<Receipt>& acks, const std::vector<Receipt>& requeues) {
  if (acks.empty() && requeues.empty()) return Status::OK();
  auto forget_all = [&] {
    for (const Receipt& r : acks) in_flight_.erase(r);
    for (const Receipt& r : requeues) in_flight_.erase(r);
  };
  if (!consumer_.is_open()) {
    forget_all();
    return Status::Unavailable("lost the RabbitMQ consuming connection before acknowledging " +
                               std::to_string(acks.size() + requeues.size()) +
                               " message(s); RabbitMQ delivers them again and the guard absorbs the copies");
  }
  const uint64_t gen = consumer_.generation();
  std::vector<uint64_t> tags, outstanding;
  for (const Receipt& r : acks) tags.push_back(in_flight_.at(r)->envelope.delivery_tag);
  for (const auto& [receipt, d] : in_flight_)
    if (d->generation == gen) outstanding.push_back(d->envelope.delivery_tag);
  std::sort(tags.begin(), tags.end());
  std::sort(outstanding.begin(), outstanding.end());
  // The longest run of this channel's oldest outstanding tags that are all being
  // acked now can go as one multiple-ack; anything after a gap goes one by one.
  size_t prefix = 0;
  while (prefix < tags.size() && prefix < outstanding.size() && tags[prefix] == outstanding[prefix]) ++prefix;
  Status s;
  if (prefix >= 2) {
    s = consumer_.CheckStatus(amqp_basic_ack(consumer_.raw(), kChannel, tags[prefix - 1], /*multiple=*/1),
                              "acknowledging messages");
  } else {
    prefix = 0;
  }
  for (size_t i = prefix; i < tags.size() && s.ok(); ++i)
    s = consumer_.CheckStatus(amqp_basic_ack(consumer_.raw(), kChannel, tags[i], 0), "acknowledging a message");
  for (const Receipt& r : requeues) {
    if (!s.ok()) break;
    s = consumer_.CheckStatus(
        amqp_basic_nack(consumer_.raw(), kChannel, in_flight_.at(r)->envelope.delivery_tag, 0, /*requeue=*/1),
        "requeueing a message");
  }
  forget_all();
  if (!s.ok())
    return Annotate(s, " (unacknowledged messages come back from RabbitMQ; the guard absorbs the copies)");
  return Status::OK();
}

}  // namespace idem::rabbitmq
