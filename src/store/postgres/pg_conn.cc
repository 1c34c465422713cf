#include "store/postgres/pg_conn.h"

#include <algorithm>

#include "store/postgres/pg_placeholders.h"
#include "store/postgres/pg_status.h"
#include "store/postgres/pg_values.h"

namespace idem::pg {
namespace {

// Statements beyond this many distinct texts run unprepared, so code that
// varies its SQL text cannot grow the server's statement cache without bound.
constexpr size_t kMaxPreparedStatements = 1000;

// PostgreSQL's NOTICEs ("relation already exists, skipping") are not errors;
// libpq would print them to stderr.
void IgnoreNotice(void*, const char*) {}

std::string Abbreviated(std::string_view sql) {
  constexpr size_t kMax = 160;
  return sql.size() <= kMax ? std::string(sql) : std::string(sql.substr(0, kMax)) + "…";
}

// The connect_timeout libpq used: the URL's own if it set one, else ours.
std::string ConnectTimeoutOf(PGconn* conn, const std::string& ours) {
  std::string used = ours;
  if (PQconninfoOption* options = PQconninfo(conn)) {
    for (PQconninfoOption* o = options; o->keyword; ++o)
      if (std::string_view(o->keyword) == "connect_timeout" && o->val && *o->val) used = o->val;
    PQconninfoFree(options);
  }
  return used;
}

}  // namespace

Result<std::unique_ptr<Conn>> Conn::Open(const std::string& url, const PostgresStoreOptions& options, Env* env) {
  const std::string timeout = std::to_string(std::max(options.connect_timeout_s, 2));
  // libpq processes keywords in order and the last value wins: our defaults
  // come first, so the same settings in the URL override them.
  const char* keys[] = {"connect_timeout", "client_encoding", "application_name", "dbname", nullptr};
  const char* values[] = {timeout.c_str(), "UTF8", "idem", url.c_str(), nullptr};
  PGconn* raw = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (!raw) return Status::Unavailable("cannot connect to PostgreSQL: libpq is out of memory");
  std::unique_ptr<Conn> conn(new Conn(raw, options, env));
  if (!conn->Healthy())
    return Status::Unavailable("cannot connect to PostgreSQL (" + conn->Describe() + ") within connect_timeout=" +
                               ConnectTimeoutOf(raw, timeout) + " s: " + TrimmedMessage(PQerrorMessage(raw)) +
                               " (check that the server runs and that the URL's host, port, user and "
                               "database are right)");
  PQsetNoticeProcessor(raw, IgnoreNotice, nullptr);
  return conn;
}

Conn::~Conn() { PQfinish(conn_); }

std::string Conn::Describe() const {
  auto field = [](const char* s) { return std::string(s ? s : ""); };
  return field(PQhost(conn_)) + ":" + field(PQport(conn_)) + "/" + field(PQdb(conn_)) + " as " +
         field(PQuser(conn_));
}

Status Conn::Reconnect() {
  int64_t pause_ms = options_.reconnect_backoff_ms;
  const int attempts = std::max(options_.reconnect_attempts, 1);
  for (int attempt = 1;; ++attempt) {
    PQreset(conn_);
    if (Healthy()) {
      statements_.clear();  // prepared statements died with the old session
      deferred_.clear();    // and so did the transaction they belonged to
      return Status::OK();
    }
    if (attempt >= attempts) break;
    env_->SleepMs(pause_ms);
    pause_ms *= 2;
  }
  return Status::Unavailable("cannot reach PostgreSQL (" + Describe() + ") after " + std::to_string(attempts) +
                             " reconnect attempts: " + TrimmedMessage(PQerrorMessage(conn_)) + "; retry later");
}

Result<ResultPtr> Conn::Check(PGresult* raw, std::string_view sql) {
  ResultPtr res(raw);
  const ExecStatusType st = res ? PQresultStatus(res.get()) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_EMPTY_QUERY) return res;
  return StatusFromPg(conn_, res.get(), "PostgreSQL statement failed [" + Abbreviated(sql) + "]");
}

Result<ResultPtr> Conn::Run(std::string_view sql, const std::vector<Value>& params) {
  auto p = Params::From(params);
  if (!p.ok()) return p.status();
  std::string key(sql);
  key += '\0';
  key += p->TypeSignature();
  auto it = statements_.find(key);
  if (it == statements_.end()) {
    TranslatedSql t = TranslatePlaceholders(sql);
    if (t.placeholders > 0 && t.placeholders != params.size())
      return Status::InvalidArgument("the statement has " + std::to_string(t.placeholders) + " placeholders but " +
                                     std::to_string(params.size()) + " values were bound [" + Abbreviated(sql) + "]");
    // With deferred commands queued (a handler's SAVEPOINT), the statement
    // goes out after them, its PREPARE included: one that fails to prepare
    // then fails inside the savepoint, which rolls back one message, where a
    // PREPARE sent ahead of it aborted the whole transaction.
    if (statements_.size() >= kMaxPreparedStatements) {
      if (!deferred_.empty()) return RunPipelined({nullptr, &t.text, &*p}, sql);
      return Check(PQexecParams(conn_, t.text.c_str(), p->count(), p->types(), p->values(), p->lengths(),
                                p->formats(), /*resultFormat=*/0),
                   sql);
    }
    std::string name = "idem_" + std::to_string(++next_statement_);
    if (!deferred_.empty()) {
      bool prepared = false;
      auto res = RunPipelined({name.c_str(), &t.text, &*p}, sql, &prepared);
      if (prepared) statements_.emplace(std::move(key), Prepared{std::move(name)});
      return res;
    }
    auto prepared = Check(PQprepare(conn_, name.c_str(), t.text.c_str(), p->count(), p->types()), sql);
    if (!prepared.ok()) return prepared.status();
    it = statements_.emplace(std::move(key), Prepared{std::move(name)}).first;
  }
  // (A statement whose plan went stale fails here as below, and is forgotten
  // when it next runs alone: the claim, which opens every batch, never waits
  // behind deferred commands.)
  if (!deferred_.empty()) return RunPipelined({it->second.name.c_str(), nullptr, &*p}, sql);
  PGresult* res = PQexecPrepared(conn_, it->second.name.c_str(), p->count(), p->values(), p->lengths(),
                                 p->formats(), /*resultFormat=*/0);
  const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  // "cached plan must not change result type": a table changed under the
  // prepared statement (a migration while consumers run). Forget it, so the
  // next transaction prepares it afresh instead of failing forever.
  if (state && std::string_view(state) == "0A000") statements_.erase(it);
  return Check(res, sql);
}

Result<ResultPtr> Conn::Command(std::string_view sql) {
  const std::string text(sql);
  if (!deferred_.empty()) return RunPipelined({nullptr, &text, nullptr}, sql);
  return Check(PQexec(conn_, text.c_str()), sql);
}

Result<ResultPtr> Conn::RunPipelined(const Pipelined& st, std::string_view sql, bool* prepared) {
  std::vector<std::string> queued = std::move(deferred_);
  deferred_.clear();
  auto lost = [&](std::string_view what) {
    return Status::Unavailable("PostgreSQL connection (" + Describe() + ") failed while " + std::string(what) + ": " +
                               TrimmedMessage(PQerrorMessage(conn_)) + "; the transaction is lost, retry the batch");
  };
  if (!PQenterPipelineMode(conn_)) return lost("entering pipeline mode");
  bool sent = true;
  for (const std::string& q : queued)
    sent = sent && PQsendQueryParams(conn_, q.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0);
  const Params* p = st.params;
  const bool prepare = st.name && st.text;
  if (prepare) sent = sent && PQsendPrepare(conn_, st.name, st.text->c_str(), p->count(), p->types());
  if (st.name)
    sent = sent && PQsendQueryPrepared(conn_, st.name, p->count(), p->values(), p->lengths(), p->formats(), 0);
  else if (p)
    sent = sent && PQsendQueryParams(conn_, st.text->c_str(), p->count(), p->types(), p->values(), p->lengths(),
                                     p->formats(), 0);
  else
    sent = sent && PQsendQueryParams(conn_, st.text->c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0);
  sent = sent && PQpipelineSync(conn_);
  if (!sent) {
    (void)PQexitPipelineMode(conn_);
    return lost("sending a pipeline");
  }
  // One result (then a NULL) per query, in order, then the sync point. After
  // an error the server skips the rest up to the sync (PGRES_PIPELINE_ABORTED).
  Result<ResultPtr> out = Status::OK();
  Status first_error;
  const size_t queries = queued.size() + (prepare ? 2 : 1);
  for (size_t i = 0; i < queries; ++i) {
    PGresult* raw = PQgetResult(conn_);
    if (!raw) return lost("reading a pipeline's results");
    while (PGresult* extra = PQgetResult(conn_)) PQclear(extra);  // up to the query's terminating NULL
    const std::string_view what = i < queued.size() ? std::string_view(queued[i]) : sql;
    if (PQresultStatus(raw) == PGRES_PIPELINE_ABORTED) {
      PQclear(raw);
      continue;
    }
    Result<ResultPtr> r = Check(raw, what);
    if (prepare && i == queued.size() && prepared) *prepared = r.ok();
    if (!r.ok() && first_error.ok()) first_error = r.status();
    if (i + 1 == queries) out = std::move(r);
  }
  PGresult* sync = PQgetResult(conn_);
  const bool synced = sync && PQresultStatus(sync) == PGRES_PIPELINE_SYNC;
  PQclear(sync);
  if (!synced || !PQexitPipelineMode(conn_)) return lost("closing a pipeline");
  if (!first_error.ok()) return first_error;
  return out;
}

}  // namespace idem::pg
