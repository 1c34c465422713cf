#include "store/postgres/pg_status.h"

namespace idem::pg {
namespace {

std::string SqlState(const PGresult* res) {
  const char* s = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  return s ? s : "";
}

bool StartsWith(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// 08xxx connection exceptions; 57P01..57P03 the server is shutting down,
// crashed or starting.
bool ServerGone(const std::string& state) {
  return StartsWith(state, "08") || state == "57P01" || state == "57P02" || state == "57P03";
}

}  // namespace

std::string TrimmedMessage(const char* text) {
  std::string s = text ? text : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

bool ConnectionLost(PGconn* conn, const PGresult* res) {
  return PQstatus(conn) != CONNECTION_OK || ServerGone(SqlState(res));
}

Status StatusFromPg(PGconn* conn, const PGresult* res, std::string_view what) {
  const std::string state = SqlState(res);
  std::string detail = TrimmedMessage(res ? PQresultErrorMessage(res) : nullptr);
  if (detail.empty()) detail = TrimmedMessage(PQerrorMessage(conn));
  std::string msg = std::string(what) + ": " + detail;
  if (!state.empty()) msg += " [SQLSTATE " + state + "]";

  if (ConnectionLost(conn, res))
    return Status::Unavailable(msg + " (the connection to PostgreSQL was lost; nothing was committed; "
                                     "it is re-opened on the next transaction)");
  if (state == "23505") return Status::AlreadyExists(msg);
  // 40P01 deadlock_detected, 40001 serialization_failure: the server picked this
  // transaction as the one to give way; the work itself is fine.
  if (state == "40P01" || state == "40001")
    return Status::TransactionConflict(msg + " (deadlock or serialization failure: roll the whole transaction "
                                             "back and run it again)");
  if (state == "55P03") return Status::Busy(msg + " (lock timeout: retry the transaction)");
  if (state == "57014") return Status::Retryable(msg + " (the statement was cancelled or timed out)");
  if (StartsWith(state, "53")) return Status::Unavailable(msg + " (the server is out of resources; retry later)");
  if (StartsWith(state, "58")) return Status::IOError(msg);
  if (state == "XX001" || state == "XX002")
    return Status::Corruption(msg + " (the server reports damaged data; restore from a backup)");
  if (state == "25P02")
    return Status::Permanent(msg + " (an earlier statement failed and aborted the transaction; wrap statements "
                                   "that may fail in a savepoint and roll back to it)");
  return Status::Permanent(msg);
}

}  // namespace idem::pg
