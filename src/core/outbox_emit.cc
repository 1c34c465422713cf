// HandlerContext::Emit: one INSERT into idem_outbox through the handler's own
// transaction, so the row shares the savepoint (and the fate) of its effects.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "idem/handler.h"

namespace idem {
namespace {

// 128 random bits as 32 hex digits: unique without coordination between
// consumers, and reproducible under the simulator's seeded Env.
std::string NewMessageId(Env& env) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(env.Random64()),
                static_cast<unsigned long long>(env.Random64()));
  return buf;
}

std::string HeadersJson(const std::map<std::string, std::string>& headers) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : headers) j[k] = v;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

Status HandlerContext::Emit(const OutgoingMessage& out) {
  if (out.topic.empty()) return Status::InvalidArgument("outbox message without a topic: set OutgoingMessage::topic");
  if (out.key.empty())
    return Status::InvalidArgument("outbox message to '" + out.topic +
                                   "' without a business key: set OutgoingMessage::key (the downstream "
                                   "consumer deduplicates by it)");
  const int64_t now = env.NowMs();
  return tx.Exec("INSERT INTO idem_outbox (message_id, topic, msg_key, headers, payload, due_ms, created_ms) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)",
                 {NewMessageId(env), out.topic, out.key, HeadersJson(out.headers), Blob{out.payload}, now, now})
      .status();
}

}  // namespace idem
