#include "store/postgres/pg_tx.h"

#include <cctype>

#include "core/record_row.h"
#include "store/column_kind.h"
#include "store/dialects.h"
#include "store/postgres/pg_record_statements.h"
#include "store/postgres/pg_values.h"
#include "store/sql_store_tx.h"

namespace idem::pg {

// Claims a batch in one statement that takes every lock it needs in key order
// (Claim sorts the keys): the INSERT inserts each new key and locks each
// existing record (ON CONFLICT DO UPDATE … WHERE false locks the row and
// changes nothing), waiting for a record another worker holds. So two batches
// lock the keys they share in one order, and one waits for the other instead
// of each holding what the other wants. (Inserting first and then locking the
// existing ones FOR UPDATE took them in two sweeps, which deadlocked under
// several workers.) The existing rows are then read FOR UPDATE, which only
// gives their newest version: they are ours already. A row another worker
// committed while we waited for it is not in the statement's snapshot, so in
// neither half; Claim runs the statement again for those, and finds them
// locked by us already. Existing rows are found key by key
// (pg_record_statements.h says why).
const char* const kClaimSql =
    "WITH req AS (SELECT k, f, m FROM unnest($2::text[], $3::text[], $4::text[]) AS r(k, f, m)), "
    "ins AS (INSERT INTO idem_records AS cur (consumer_group, key, status, fingerprint, message_id, attempts, "
    "duplicates, lease_until_ms, first_seen_ms, last_seen_ms, last_error, result_summary) "
    "SELECT $1::text, k, 'PROCESSING', f, m, 0, 0, $5::bigint, $6::bigint, $6::bigint, '', '' FROM req "
    "ON CONFLICT (consumer_group, key) DO UPDATE SET lease_until_ms = cur.lease_until_ms WHERE false "
    "RETURNING " IDEM_PG_RECORD_COLUMNS "), "
    "old AS (SELECT o.* FROM req CROSS JOIN LATERAL (SELECT " IDEM_PG_RECORD_COLUMNS " FROM idem_records "
    "WHERE consumer_group = $1::text AND key = req.k OFFSET 0) AS o ORDER BY o.key FOR UPDATE OF o) "
    "SELECT " IDEM_PG_RECORD_COLUMNS ", true FROM ins UNION ALL SELECT " IDEM_PG_RECORD_COLUMNS ", false FROM old";

// One statement for the whole batch's record writes: they travel as arrays;
// each key's row is found by its primary key (as in kClaimSql), then updated
// by its ctid. A touch ($4 true) counts a copy and leaves the outcome alone; a
// completion stores it, and a take-over's message id ($8 not empty) with it.
const char* const kWriteRecordsSql =
    "UPDATE idem_records AS r SET "
    "status = CASE WHEN c.t THEN r.status ELSE c.s END, "
    "attempts = r.attempts + CASE WHEN c.t THEN 0 ELSE 1 END, "
    "duplicates = r.duplicates + CASE WHEN c.t THEN 1 ELSE 0 END, "
    "last_error = CASE WHEN c.t THEN r.last_error ELSE c.e END, "
    "result_summary = CASE WHEN c.t THEN r.result_summary ELSE c.m END, "
    "message_id = CASE WHEN c.i = '' THEN r.message_id ELSE c.i END, "
    "lease_until_ms = CASE WHEN c.t THEN r.lease_until_ms ELSE 0 END, "
    "last_seen_ms = CASE WHEN c.t THEN GREATEST(r.last_seen_ms, $2::bigint) ELSE $2::bigint END "
    "FROM (SELECT x.tid, u.t, u.s, u.e, u.m, u.i FROM unnest($3::text[], $4::boolean[], $5::text[], $6::text[], "
    "$7::text[], $8::text[]) AS u(k, t, s, e, m, i) "
    "CROSS JOIN LATERAL (SELECT ctid AS tid FROM idem_records WHERE consumer_group = $1::text AND key = u.k "
    "OFFSET 0) AS x) AS c "
    "WHERE r.ctid = c.tid RETURNING r.key";

namespace {

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

class Tx final : public SqlStoreTx {
 public:
  explicit Tx(Conn* conn) : conn_(conn) {}
  ~Tx() override { Rollback(); }

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

 protected:
  Result<int64_t> RunExec(std::string_view sql, const std::vector<Value>& params) override {
    auto res = conn_->Run(sql, params);
    if (!res.ok()) return res.status();
    const char* n = PQcmdTuples(res->get());
    return n && *n ? std::stoll(n) : int64_t{0};
  }

  Result<Rows> RunQuery(std::string_view sql, const std::vector<Value>& params) override {
    auto res = conn_->Run(sql, params);
    if (!res.ok()) return res.status();
    return RowsFromResult(res->get());
  }

  Status ClaimPass(std::string_view group, std::span<const ClaimRequest* const> pending, int64_t now_ms,
                   int64_t lease_until_ms, Found* found) override {
    std::vector<std::string> keys, fingerprints, ids;
    for (const ClaimRequest* r : pending) {
      // ON CONFLICT DO UPDATE may meet a row once per statement: a key asked
      // twice (sorted, so next to itself) goes once.
      if (!keys.empty() && keys.back() == r->key) continue;
      keys.push_back(r->key);
      fingerprints.push_back(r->fingerprint);
      ids.push_back(r->message_id);
    }
    auto res = conn_->Run(kClaimSql, {std::string(group), TextArray(keys), TextArray(fingerprints), TextArray(ids),
                                      lease_until_ms, now_ms});
    if (!res.ok()) return res.status();
    for (Row& row : RowsFromResult(res->get())) {
      ClaimResult c;
      c.inserted = AsInt(row.at(12)) != 0;
      if (!c.inserted) c.existing = RecordFromRow(row);
      (*found)[AsText(row.at(1))] = std::move(c);
    }
    return Status::OK();
  }

  Result<int64_t> WriteBatch(std::string_view group, std::span<const RecordWrite> writes, int64_t now_ms) override {
    std::vector<std::string> keys, touches, statuses, errors, summaries, ids;
    for (const RecordWrite& w : writes) {
      const bool touch = w.kind == RecordWrite::Kind::kTouch;
      keys.emplace_back(w.key);
      touches.emplace_back(touch ? "t" : "f");
      statuses.emplace_back(touch ? "" : RecordStatusName(w.status));
      errors.emplace_back(w.error);
      summaries.emplace_back(w.summary);
      ids.emplace_back(w.message_id);
    }
    auto res = conn_->Run(kWriteRecordsSql, {std::string(group), now_ms, TextArray(keys), TextArray(touches),
                                             TextArray(statuses), TextArray(errors), TextArray(summaries),
                                             TextArray(ids)});
    if (!res.ok()) return res.status();
    return int64_t{PQntuples(res->get())};
  }

  Status RunCommit() override {
    auto res = conn_->Command("COMMIT");
    if (!res.ok()) return res.status();
    // COMMIT of a transaction that an earlier error aborted answers ROLLBACK, not an error.
    if (std::string_view(PQcmdStatus(res->get())) != "COMMIT")
      return Status::Retryable("the transaction had failed before COMMIT and was rolled back; nothing was saved");
    return Status::OK();
  }

  void RunRollback() override {
    conn_->DiscardDeferred();
    if (conn_->Healthy() && conn_->InTransaction()) (void)conn_->Command("ROLLBACK");
  }

 private:
  Status Defer(std::string_view verb, std::string_view name) {
    IDEM_RETURN_IF_ERROR(CheckUsable());
    conn_->Defer(std::string(verb) + std::string(name));
    return Status::OK();
  }
  Status Command(std::string_view verb, std::string_view name) {
    IDEM_RETURN_IF_ERROR(CheckUsable());
    return conn_->Command(std::string(verb) + std::string(name)).status();
  }

  Conn* conn_;
};

}  // namespace

std::unique_ptr<StoreTx> NewTx(Conn* conn) { return std::make_unique<Tx>(conn); }

}  // namespace idem::pg
