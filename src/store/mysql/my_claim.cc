#include "store/mysql/my_claim.h"

#include "store/dialects.h"
#include "store/record_sql.h"

namespace idem::mysql {
namespace {

std::string Markers(size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += i ? ", ?" : "?";
  return out;
}

}  // namespace

std::string ClaimInsertSql(size_t keys) {
  std::string sql =
      "INSERT IGNORE INTO idem_records (consumer_group, `key`, status, fingerprint, message_id, attempts, "
      "duplicates, lease_until_ms, first_seen_ms, last_seen_ms, last_error, result_summary) VALUES ";
  for (size_t i = 0; i < keys; ++i) sql += i ? ", (?, ?, 'PROCESSING', ?, ?, 0, 0, ?, ?, ?, '', '')"
                                             : "(?, ?, 'PROCESSING', ?, ?, 0, 0, ?, ?, ?, '', '')";
  return sql + " RETURNING `key`";
}

std::vector<Value> ClaimInsertParams(std::string_view group, std::span<const ClaimRequest* const> requests,
                                     int64_t now_ms, int64_t lease_until_ms) {
  std::vector<Value> params;
  params.reserve(requests.size() * 7);
  for (const ClaimRequest* r : requests) {
    params.emplace_back(Blob{std::string(group)});
    params.emplace_back(Blob{r->key});
    params.emplace_back(r->fingerprint);
    params.emplace_back(r->message_id);
    params.emplace_back(lease_until_ms);
    params.emplace_back(now_ms);
    params.emplace_back(now_ms);
  }
  return params;
}

namespace {

std::string ReadRecordsSql(size_t keys, std::string_view lock) {
  return "SELECT " + record_sql::RecordColumns(MysqlDialect()) +
         " FROM idem_records WHERE consumer_group = ? AND `key` IN (" + Markers(keys) + ") ORDER BY `key` " +
         std::string(lock);
}

}  // namespace

std::string LockExistingSql(size_t keys) { return ReadRecordsSql(keys, "FOR UPDATE"); }

std::string ReadSharedSql(size_t keys) { return ReadRecordsSql(keys, "LOCK IN SHARE MODE"); }

std::string CompleteSql(size_t keys, bool takes_over) {
  std::string cases;
  for (size_t i = 0; i < keys; ++i) cases += " WHEN ? THEN ?";
  return "UPDATE idem_records SET status = CASE `key`" + cases + " END, last_error = CASE `key`" + cases +
         " END, result_summary = CASE `key`" + cases + " END, " +
         (takes_over ? "message_id = COALESCE(NULLIF(CASE `key`" + cases + " END, ''), message_id), " : "") +
         "attempts = attempts + 1, lease_until_ms = 0, last_seen_ms = ? "
         "WHERE consumer_group = ? AND `key` IN (" + Markers(keys) + ")";
}

std::vector<Value> CompleteParams(std::string_view group, std::span<const RecordWrite> completions, bool takes_over,
                                  int64_t now_ms) {
  std::vector<Value> params;
  params.reserve(completions.size() * 9 + 2);
  auto add_case = [&](auto value_of) {
    for (const RecordWrite& c : completions) {
      params.emplace_back(Blob{std::string(c.key)});
      params.emplace_back(std::string(value_of(c)));
    }
  };
  add_case([](const RecordWrite& c) { return RecordStatusName(c.status); });
  add_case([](const RecordWrite& c) { return c.error; });
  add_case([](const RecordWrite& c) { return c.summary; });
  if (takes_over) add_case([](const RecordWrite& c) { return c.message_id; });
  params.emplace_back(now_ms);
  params.emplace_back(Blob{std::string(group)});
  for (const RecordWrite& c : completions) params.emplace_back(Blob{std::string(c.key)});
  return params;
}

std::string TouchSql(size_t keys) {
  return "UPDATE idem_records SET duplicates = duplicates + 1, last_seen_ms = GREATEST(last_seen_ms, ?) "
         "WHERE consumer_group = ? AND `key` IN (" + Markers(keys) + ")";
}

std::vector<Value> TouchParams(std::string_view group, std::span<const std::string_view> keys, int64_t now_ms) {
  std::vector<Value> params{now_ms, Blob{std::string(group)}};
  for (std::string_view k : keys) params.emplace_back(Blob{std::string(k)});
  return params;
}

}  // namespace idem::mysql
