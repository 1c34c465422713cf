#include "source/rabbitmq/dead_letter_console.h"

#include <amqp_framing.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "source/rabbitmq/dead_letter_id.h"
#include "source/rabbitmq/field_table.h"
#include "source/rabbitmq/message_codec.h"
#include "source/rabbitmq/own_copies.h"

namespace idem::rabbitmq {
namespace {

constexpr amqp_channel_t kConsoleChannel = 2;
constexpr size_t kFlushEvery = 100;  // replays/purges confirmed and acked per round trip

uint64_t Fnv1a(const std::string& a, const std::string& b) {
  uint64_t h = 1469598103934665603ULL;
  for (const std::string* s : {&a, &b})
    for (unsigned char c : *s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::string BrokerReason(const Death& d) {
  std::string why = d.reason == "rejected"   ? "a consumer rejected it with requeue=false"
                    : d.reason == "expired"  ? "its TTL ran out"
                    : d.reason == "maxlen"   ? "the queue's length limit was reached"
                                             : d.reason;
  return "dead-lettered by RabbitMQ from queue '" + d.queue + "': " + why;
}

DeadLetter ToDeadLetter(const amqp_message_t& msg, const std::string& routing_key, const QueueNames& names,
                        const std::string& user) {
  const amqp_basic_properties_t& p = msg.properties;
  static const amqp_table_t kEmpty{0, nullptr};
  const amqp_table_t& all = (p._flags & AMQP_BASIC_HEADERS_FLAG) ? p.headers : kEmpty;
  // idem's stamps count only on a copy idem made (own_copies.h): a message
  // RabbitMQ moved here itself, or a producer sent here, keeps what its
  // producer wrote renamed, and is shown as dead-lettered by the broker.
  const bool ours = MadeByIdem(p, user);
  const amqp_table_t& h = ours ? all : kEmpty;
  DeadLetter d;
  d.message = MessageFromAmqp(p, msg.body, routing_key, "");
  if (!ours) DisownProducerHeaders(d.message, routing_key);
  // The handler runs stamped when it was parked, as the other brokers report
  // them: 0 for a message rejected at publish, whose handler never ran.
  // AttemptOf counts the delivery about to happen (at least 1); it stands in
  // only for a message RabbitMQ dead-lettered itself, with no stamp.
  const std::optional<int64_t> stamped = GetInt(h, kAttemptHeader);
  d.attempts = stamped ? static_cast<int>(std::clamp<int64_t>(*stamped, 0, 1'000'000)) : AttemptOf(h, names);
  d.reason = GetString(h, kReasonHeader).value_or("");
  d.first_failed_ms = GetInt(h, kFirstFailedHeader).value_or(0);
  d.last_failed_ms = GetInt(h, kLastFailedHeader).value_or(d.first_failed_ms);
  const std::vector<Death> deaths = DeathsOf(all);
  // The newest death that moved it into the terminal queue (x-death is newest first).
  const Death* death = nullptr;
  for (const Death& x : deaths)
    if (x.queue == names.main) {
      death = &x;
      break;
    }
  if (!GetString(h, kTopicHeader) && death && !death->routing_key.empty()) d.message.topic = death->routing_key;
  if (auto id = GetInt(h, kDeadIdHeader)) {
    d.id = *id;
  } else {
    const int64_t at_ms = death ? death->time_s * 1000 : 0;
    d.id = DeadLetterIds::Derived(at_ms, Fnv1a(d.message.id, d.message.payload));
    if (d.reason.empty() && death) d.reason = BrokerReason(*death);
    if (!d.first_failed_ms) d.first_failed_ms = d.last_failed_ms = at_ms;
  }
  if (d.reason.empty()) d.reason = "no reason recorded";
  return d;
}

std::unique_ptr<Outgoing> AuditRecord(const DeadLetter& d, const std::string& action, const std::string& actor,
                                      const QueueNames& names, int64_t now_ms) {
  nlohmann::json j{{"at_ms", now_ms},           {"actor", actor},       {"action", action},
                   {"dead_id", d.id},            {"message_id", d.message.id},
                   {"topic", d.message.topic},   {"key", d.message.key}, {"reason", d.reason}};
  auto o = std::make_unique<Outgoing>();
  o->routing_key = names.audit;
  o->content_type = "application/json";
  o->timestamp_s = static_cast<uint64_t>(now_ms / 1000);
  o->body = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return o;
}

}  // namespace

Result<int64_t> DeadLetterConsole::Scan(const Decide& decide, const std::string& actor, const char* what) {
  IDEM_RETURN_IF_ERROR(conn_->OpenChannel(kConsoleChannel));
  std::vector<std::unique_ptr<Outgoing>> outgoing;
  std::vector<uint64_t> tags;
  int64_t changed = 0;
  Status status;

  // Publishes the replay copies and audit records, then acks their dead letters.
  auto flush = [&]() -> Status {
    if (tags.empty()) return Status::OK();
    std::vector<Outgoing*> batch;
    for (auto& o : outgoing) batch.push_back(o.get());
    IDEM_RETURN_IF_ERROR(publisher_->PublishAll(batch));
    for (uint64_t tag : tags)
      IDEM_RETURN_IF_ERROR(conn_->CheckStatus(amqp_basic_ack(conn_->raw(), kConsoleChannel, tag, 0),
                                              "acknowledging a dead letter"));
    changed += static_cast<int64_t>(tags.size());
    outgoing.clear();
    tags.clear();
    return Status::OK();
  };

  const size_t limit = conn_->options().dead_scan_limit;
  for (size_t n = 0; n < limit && status.ok(); ++n) {
    amqp_rpc_reply_t r = amqp_basic_get(conn_->raw(), kConsoleChannel, StringBytes(names_.dead), /*no_ack=*/0);
    status = conn_->Check(r, std::string("reading the terminal queue '") + names_.dead + "'", kConsoleChannel);
    if (!status.ok() || r.reply.id == AMQP_BASIC_GET_EMPTY_METHOD) break;
    auto* ok = static_cast<amqp_basic_get_ok_t*>(r.reply.decoded);
    const uint64_t tag = ok->delivery_tag;
    const std::string routing_key = BytesToString(ok->routing_key);
    amqp_message_t msg;
    status = conn_->Check(amqp_read_message(conn_->raw(), kConsoleChannel, &msg, 0), "reading a dead letter",
                          kConsoleChannel);
    if (!status.ok()) break;
    const DeadLetter d = ToDeadLetter(msg, routing_key, names_, conn_->options().user);
    const Action action = decide(d);
    const int64_t now = env_->NowMs();
    if (action == Action::kReplay) {
      auto copy = Outgoing::CopyOf(msg.properties, msg.body);
      if (!MadeByIdem(msg.properties, conn_->options().user)) DisownProducerHeaders(copy->headers);
      MakeReplayCopy(*copy, d.message.topic, names_, actor, now);
      copy->user_id = conn_->options().user;  // idem's copy (own_copies.h); its grant is in the store
      outgoing.push_back(std::move(copy));
    }
    if (action == Action::kReplay || action == Action::kPurge) {
      outgoing.push_back(AuditRecord(d, action == Action::kReplay ? "replay" : "purge", actor, names_, now));
      tags.push_back(tag);
    }
    amqp_destroy_message(&msg);
    if (action == Action::kStop) break;
    if (tags.size() >= kFlushEvery) status = flush();
  }
  if (status.ok()) status = flush();
  // Whatever is still unacked goes back to its place in the queue.
  if (conn_->is_open()) (void)conn_->CloseChannel(kConsoleChannel);
  amqp_maybe_release_buffers(conn_->raw());
  if (!status.ok() && changed > 0)
    return Annotate(status, " (" + std::to_string(changed) + " dead letter(s) were " + what +
                                " before this failure; run the command again for the rest)");
  if (!status.ok()) return status;
  return changed;
}

Result<std::vector<DeadLetter>> DeadLetterConsole::List(size_t limit, int64_t after_id) {
  std::vector<DeadLetter> found;
  auto scanned = Scan(
      [&](const DeadLetter& d) {
        if (d.id > after_id) found.push_back(d);
        return Action::kKeep;
      },
      "", "read");
  if (!scanned.ok()) return scanned.status();
  std::stable_sort(found.begin(), found.end(), [](const DeadLetter& a, const DeadLetter& b) { return a.id < b.id; });
  if (found.size() > limit) found.resize(limit);
  return found;
}

Result<std::optional<DeadLetter>> DeadLetterConsole::Get(int64_t id) {
  std::optional<DeadLetter> found;
  auto scanned = Scan(
      [&](const DeadLetter& d) {
        if (d.id != id) return Action::kKeep;
        found = d;
        return Action::kStop;
      },
      "", "read");
  if (!scanned.ok()) return scanned.status();
  return found;
}

Result<int64_t> DeadLetterConsole::Replay(const std::vector<int64_t>& ids, const std::string& actor) {
  IDEM_RETURN_IF_ERROR(DeclareAuditQueue(*conn_, names_));
  const std::set<int64_t> wanted(ids.begin(), ids.end());
  return Scan([&](const DeadLetter& d) { return wanted.empty() || wanted.count(d.id) ? Action::kReplay : Action::kKeep; },
              actor, "replayed");
}

Result<int64_t> DeadLetterConsole::Purge(const std::vector<int64_t>& ids, const std::string& actor) {
  IDEM_RETURN_IF_ERROR(DeclareAuditQueue(*conn_, names_));
  const std::set<int64_t> wanted(ids.begin(), ids.end());
  return Scan([&](const DeadLetter& d) { return wanted.empty() || wanted.count(d.id) ? Action::kPurge : Action::kKeep; },
              actor, "purged");
}

Result<int64_t> DeadLetterConsole::OldestFailedMs() {
  int64_t oldest = 0;
  auto scanned = Scan(
      [&](const DeadLetter& d) {
        oldest = d.last_failed_ms;
        return Action::kStop;
      },
      "", "read");
  if (!scanned.ok()) return scanned.status();
  return oldest;
}

}  // namespace idem::rabbitmq
