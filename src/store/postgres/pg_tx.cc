#include "store/postgres/pg_tx.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <unordered_map>

#include "core/record_row.h"
#include "store/column_kind.h"
#include "store/dialects.h"
#include "store/postgres/pg_record_statements.h"
#include "store/postgres/pg_values.h"

namespace idem::pg {

// Claims a batch in one statement: inserts the keys that have no record and
// returns the new rows (inserted = true) together with the existing ones
// (inserted = false), locked FOR UPDATE so no other worker can take them over
// or complete them before we commit. The existing rows are read with
// the statement's snapshot, so a row another worker committed while we waited
// for its insert is in neither half; Claim runs the statement again for those.
// Existing rows are found key by key (pg_record_statements.h says why).
const char* const kClaimSql =
    "WITH req AS (SELECT k, f, m FROM unnest($2::text[], $3::text[], $4::text[]) AS r(k, f, m)), "
    "ins AS (INSERT INTO idem_records (consumer_group, key, status, fingerprint, message_id, attempts, duplicates, "
    "lease_until_ms, first_seen_ms, last_seen_ms, last_error, result_summary) "
    "SELECT $1::text, k, 'PROCESSING', f, m, 0, 0, $5::bigint, $6::bigint, $6::bigint, '', '' FROM req "
    "ON CONFLICT (consumer_group, key) DO NOTHING RETURNING " IDEM_PG_RECORD_COLUMNS "), "
    "old AS (SELECT o.* FROM req CROSS JOIN LATERAL (SELECT " IDEM_PG_RECORD_COLUMNS " FROM idem_records "
    "WHERE consumer_group = $1::text AND key = req.k OFFSET 0) AS o ORDER BY o.key FOR UPDATE OF o) "
    "SELECT " IDEM_PG_RECORD_COLUMNS ", true FROM ins UNION ALL SELECT " IDEM_PG_RECORD_COLUMNS ", false FROM old";

// One statement for the whole batch: the completions travel as four arrays;
// each key's row is found by its primary key (as in kClaimSql), then updated
// by its ctid.
const char* const kCompleteSql =
    "UPDATE idem_records AS r SET status = c.s, attempts = r.attempts + 1, last_error = c.e, "
    "result_summary = c.m, lease_until_ms = 0, last_seen_ms = $2::bigint "
    "FROM (SELECT x.tid, u.s, u.e, u.m FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS u(k, s, e, m) "
    "CROSS JOIN LATERAL (SELECT ctid AS tid FROM idem_records WHERE consumer_group = $1::text AND key = u.k "
    "OFFSET 0) AS x) AS c "
    "WHERE r.ctid = c.tid RETURNING r.key";

namespace {

// A key missing from both halves three times running was deleted under us
// (the sweeper); the caller retries the batch.
constexpr int kClaimPasses = 3;

// A PostgreSQL array literal of text elements: {"a","b\"c"}.
std::string TextArray(const std::vector<std::string>& items) {
  std::string s = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) s += ',';
    s += '"';
    for (char c : items[i]) {
      if (c == '"' || c == '\\') s += '\\';
      s += c;
    }
    s += '"';
  }
  s += '}';
  return s;
}

class Tx final : public StoreTx {
 public:
  explicit Tx(Conn* conn) : conn_(conn) {}
  ~Tx() override { Rollback(); }

  Result<int64_t> Exec(std::string_view sql, const std::vector<Value>& params) override {
    IDEM_RETURN_IF_ERROR(CheckOpen());
    auto res = conn_->Run(sql, params);
    if (!res.ok()) return res.status();
    const char* n = PQcmdTuples(res->get());
    return n && *n ? std::stoll(n) : int64_t{0};
  }

  Result<Rows> Query(std::string_view sql, const std::vector<Value>& params) override {
    IDEM_RETURN_IF_ERROR(CheckOpen());
    auto res = conn_->Run(sql, params);
    if (!res.ok()) return res.status();
    return RowsFromResult(res->get());
  }

  // Savepoint names are chosen by code (SqlTx's contract), never by message content.
  // SAVEPOINT and RELEASE go out with the next statement (Conn::Defer): the
  // pipeline opens and releases one per message, and their answers say nothing
  // the next statement's would not.
  Status Savepoint(std::string_view name) override { return Defer("SAVEPOINT ", name); }
  Status RollbackTo(std::string_view name) override { return Command("ROLLBACK TO SAVEPOINT ", name); }
  Status Release(std::string_view name) override { return Defer("RELEASE SAVEPOINT ", name); }
  const SqlDialect& Dialect() const override { return PostgresDialect(); }

  // The table an unquoted name resolves to: folded to lower case, in the first
  // schema of the search_path that has it.
  Result<std::optional<std::vector<TableColumn>>> DescribeTable(std::string_view table) override {
    std::string name(table);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto rows = Query(
        "SELECT c.column_name, c.data_type FROM information_schema.columns c "
        "JOIN unnest(current_schemas(false)) WITH ORDINALITY AS s(name, pos) ON c.table_schema = s.name::text "
        "WHERE c.table_name = ? AND s.pos = (SELECT min(p.pos) FROM unnest(current_schemas(false)) "
        "WITH ORDINALITY AS p(name, pos) JOIN information_schema.columns d ON d.table_schema = p.name::text "
        "WHERE d.table_name = ?) ORDER BY c.ordinal_position",
        {name, name});
    if (!rows.ok()) return rows.status();
    return ColumnsFromRows(*rows, &PostgresColumnKind);
  }

  Result<std::vector<ClaimResult>> Claim(std::string_view group, std::span<const ClaimRequest> requests,
                                         int64_t now_ms, int64_t lease_until_ms) override;

  Status TakeOver(std::string_view group, const ClaimRequest& req, int64_t now_ms,
                  int64_t lease_until_ms) override {
    return record_sql::TakeOver(*this, group, req, now_ms, lease_until_ms);
  }

  Status Complete(std::string_view group, std::span<const Completion> completions, int64_t now_ms) override;

  Status NoteDuplicate(std::string_view group, std::string_view key, int64_t now_ms) override {
    return record_sql::NoteDuplicate(*this, group, key, now_ms);
  }

  Status Commit() override {
    IDEM_RETURN_IF_ERROR(CheckOpen());
    done_ = true;
    auto res = conn_->Command("COMMIT");
    if (!res.ok()) {
      // The COMMIT may have been applied before the answer was lost.
      if (res.status().code() == Status::Code::kUnavailable)
        return Status::InDoubt("COMMIT outcome unknown: " + res.status().message() +
                               " — re-read the records before acting; never retry blindly");
      return res.status();
    }
    // COMMIT of a transaction that an earlier error aborted answers ROLLBACK, not an error.
    if (std::string_view(PQcmdStatus(res->get())) != "COMMIT")
      return Status::Retryable("the transaction had failed before COMMIT and was rolled back; nothing was saved");
    return Status::OK();
  }

  void Rollback() override {
    if (done_) return;
    done_ = true;
    conn_->DiscardDeferred();
    if (conn_->Healthy() && conn_->InTransaction()) (void)conn_->Command("ROLLBACK");
  }

 private:
  Status CheckOpen() const {
    return done_ ? Status::InvalidArgument("the transaction is already committed or rolled back") : Status::OK();
  }
  Status Defer(std::string_view verb, std::string_view name) {
    IDEM_RETURN_IF_ERROR(CheckOpen());
    conn_->Defer(std::string(verb) + std::string(name));
    return Status::OK();
  }
  Status Command(std::string_view verb, std::string_view name) {
    IDEM_RETURN_IF_ERROR(CheckOpen());
    return conn_->Command(std::string(verb) + std::string(name)).status();
  }

  Conn* conn_;
  bool done_ = false;
};

Result<std::vector<ClaimResult>> Tx::Claim(std::string_view group, std::span<const ClaimRequest> requests,
                                           int64_t now_ms, int64_t lease_until_ms) {
  IDEM_RETURN_IF_ERROR(CheckOpen());
  // Key order: concurrent batches insert and lock shared keys in the same
  // order, so they wait for each other instead of deadlocking.
  std::vector<size_t> pending(requests.size());
  std::iota(pending.begin(), pending.end(), 0);
  std::sort(pending.begin(), pending.end(), [&](size_t a, size_t b) { return requests[a].key < requests[b].key; });

  std::unordered_map<std::string, ClaimResult> found;
  for (int pass = 0; pass < kClaimPasses && !pending.empty(); ++pass) {
    std::vector<std::string> keys, fingerprints, ids;
    for (size_t i : pending) {
      keys.push_back(requests[i].key);
      fingerprints.push_back(requests[i].fingerprint);
      ids.push_back(requests[i].message_id);
    }
    auto res = conn_->Run(kClaimSql, {std::string(group), TextArray(keys), TextArray(fingerprints), TextArray(ids),
                                      lease_until_ms, now_ms});
    if (!res.ok()) return res.status();
    for (Row& row : RowsFromResult(res->get())) {
      ClaimResult c;
      c.inserted = AsInt(row.at(12)) != 0;
      if (!c.inserted) c.existing = RecordFromRow(row);
      found[AsText(row.at(1))] = std::move(c);
    }
    std::erase_if(pending, [&](size_t i) { return found.count(requests[i].key) > 0; });
  }
  if (!pending.empty())
    return Status::Busy("the record of key '" + requests[pending[0]].key +
                        "' disappeared while it was being claimed (swept concurrently?); retry the batch");
  std::vector<ClaimResult> out(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) out[i] = std::move(found[requests[i].key]);
  return out;
}

Status Tx::Complete(std::string_view group, std::span<const Completion> completions, int64_t now_ms) {
  IDEM_RETURN_IF_ERROR(CheckOpen());
  if (completions.empty()) return Status::OK();
  std::vector<std::string> keys, statuses, errors, summaries;
  for (const Completion& c : completions) {
    keys.emplace_back(c.key);
    statuses.emplace_back(RecordStatusName(c.status));
    errors.emplace_back(c.error);
    summaries.emplace_back(c.summary);
  }
  auto res = conn_->Run(kCompleteSql, {std::string(group), now_ms, TextArray(keys), TextArray(statuses),
                                       TextArray(errors), TextArray(summaries)});
  if (!res.ok()) return res.status();
  if (PQntuples(res->get()) == static_cast<int>(keys.size())) return Status::OK();
  std::unordered_map<std::string, bool> updated;
  for (const Row& row : RowsFromResult(res->get())) updated[AsText(row.at(0))] = true;
  for (const std::string& k : keys)
    if (!updated.count(k)) return Status::NotFound("record to complete is missing: " + k);
  return Status::OK();
}

}  // namespace

std::unique_ptr<StoreTx> NewTx(Conn* conn) { return std::make_unique<Tx>(conn); }

}  // namespace idem::pg
