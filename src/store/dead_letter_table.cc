#include "store/dead_letter_table.h"

#include <nlohmann/json.hpp>

namespace idem::store_dead_letters {
namespace {

#define IDEM_DEAD_LETTER_COLUMNS "id, topic, msg_key, message_id, headers, payload, reason, attempts, parked_ms"

std::string HeadersJson(const std::map<std::string, std::string>& headers) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : headers) j[k] = v;
  // Headers are not the payload: text that is not UTF-8 is kept as U+FFFD
  // rather than refused (the payload column keeps the bytes exactly).
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::map<std::string, std::string> HeadersFrom(const std::string& text) {
  std::map<std::string, std::string> out;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items())
    if (v.is_string()) out[k] = v.get<std::string>();
  return out;
}

DeadLetter FromRow(const Row& r) {
  DeadLetter d;
  d.id = AsInt(r[0]);
  d.message.topic = AsText(r[1]);
  d.message.key = AsText(r[2]);
  d.message.id = AsText(r[3]);
  d.message.headers = HeadersFrom(AsText(r[4]));
  d.message.payload = AsText(r[5]);
  d.reason = AsText(r[6]);
  d.attempts = static_cast<int>(AsInt(r[7]));
  d.first_failed_ms = d.last_failed_ms = AsInt(r[8]);
  return d;
}

Result<Rows> Read(Store& store, std::string_view sql, const std::vector<Value>& params) {
  auto tx = store.Begin();
  if (!tx.ok()) return tx.status();
  auto rows = (*tx)->Query(sql, params);
  (*tx)->Rollback();
  return rows;
}

class Sink final : public StoreDeadLetterSink {
 public:
  Sink(Store* store, std::string group, Env* env) : store_(store), group_(std::move(group)), env_(env) {}
  Result<int64_t> Park(const Message& message, const std::string& reason, int attempts) override {
    return store_dead_letters::Park(*store_, group_, message, reason, attempts, env_->NowMs());
  }

 private:
  Store* store_;
  std::string group_;
  Env* env_;
};

}  // namespace

Result<int64_t> Park(Store& store, std::string_view group, const Message& m, std::string_view reason, int attempts,
                     int64_t now_ms) {
  auto tx = store.Begin();
  if (!tx.ok()) return tx.status();
  // RETURNING: SQLite 3.35+, PostgreSQL and MariaDB 10.5+ all have it.
  auto rows = (*tx)->Query(
      "INSERT INTO idem_dead_letters (consumer_group, topic, msg_key, message_id, headers, payload, reason, attempts, "
      "parked_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
      {std::string(group), m.topic, m.key, m.id, HeadersJson(m.headers), Blob{m.payload}, std::string(reason),
       int64_t{attempts}, now_ms});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return Status::Unavailable("the store returned no id for the dead letter it was keeping; the message stays unacknowledged and is parked again");
  const int64_t id = AsInt((*rows)[0][0]);
  IDEM_RETURN_IF_ERROR((*tx)->Commit());
  return id;
}

Result<std::vector<DeadLetter>> List(Store& store, size_t limit, int64_t after_id) {
  auto rows = Read(store,
                   "SELECT " IDEM_DEAD_LETTER_COLUMNS " FROM idem_dead_letters WHERE id > ? ORDER BY id LIMIT ?",
                   {after_id, static_cast<int64_t>(limit)});
  if (!rows.ok()) return rows.status();
  std::vector<DeadLetter> out;
  for (const Row& r : *rows) out.push_back(FromRow(r));
  return out;
}

Result<std::optional<DeadLetter>> Get(Store& store, int64_t id) {
  auto rows = Read(store, "SELECT " IDEM_DEAD_LETTER_COLUMNS " FROM idem_dead_letters WHERE id = ?", {id});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return std::optional<DeadLetter>();
  return std::optional<DeadLetter>(FromRow((*rows)[0]));
}

std::unique_ptr<StoreDeadLetterSink> MakeSink(Store* store, std::string group, Env* env) {
  return std::make_unique<Sink>(store, std::move(group), env);
}

}  // namespace idem::store_dead_letters
