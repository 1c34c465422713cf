#include "store/mysql/my_status.h"

namespace idem::mysql {

bool IsConnectionLost(unsigned n) {
  return n == 2006 || n == 2013 || n == 2055 || n == 1927 || n == 1053 || n == 2002 || n == 2003;
}

Status StatusFromMysql(unsigned n, std::string_view sqlstate, std::string_view detail, std::string_view what) {
  std::string msg = std::string(what) + ": " + std::string(detail) + " [MySQL error " + std::to_string(n);
  if (!sqlstate.empty()) msg += ", SQLSTATE " + std::string(sqlstate);
  msg += "]";
  if (IsConnectionLost(n))
    return Status::Unavailable(msg + " (the connection to the server was lost; the open transaction, if any, "
                                     "was rolled back; it is re-opened on the next transaction)");
  switch (n) {
    case 1062:  // ER_DUP_ENTRY
    case 1586:  // ER_DUP_ENTRY_WITH_KEY_NAME
      return Status::AlreadyExists(msg);
    case 1213:  // ER_LOCK_DEADLOCK
      return Status::TransactionConflict(msg + " (deadlock: the server rolled the whole transaction back, "
                                               "savepoints included; run it again from the start)");
    case 1205:  // ER_LOCK_WAIT_TIMEOUT: only the statement was rolled back
      return Status::Busy(msg + " (lock wait timeout: another transaction holds the rows; retry the transaction)");
    case 1040:  // ER_CON_COUNT_ERROR
    case 1203:  // ER_TOO_MANY_USER_CONNECTIONS
      return Status::Unavailable(msg + " (the server has no connection to spare; retry later or raise "
                                       "max_connections)");
    case 1317:  // ER_QUERY_INTERRUPTED
    case 1969:  // ER_STATEMENT_TIMEOUT
      return Status::Retryable(msg + " (the statement was interrupted or timed out)");
    case 1021:  // ER_DISK_FULL
    case 1114:  // ER_RECORD_FILE_FULL
      return Status::Unavailable(msg + " (the server is out of space; retry later)");
    case 1146:  // ER_NO_SUCH_TABLE
    case 1054:  // ER_BAD_FIELD_ERROR
    case 1064:  // ER_PARSE_ERROR
      return Status::Permanent(msg + " (the statement does not fit the schema: fix the SQL or the tables)");
    case 1045:  // ER_ACCESS_DENIED_ERROR
    case 1044:  // ER_DBACCESS_DENIED_ERROR
    case 1142:  // ER_TABLEACCESS_DENIED_ERROR
      return Status::Permanent(msg + " (check the URL's user and password and the user's grants)");
    case 1049:  // ER_BAD_DB_ERROR
      return Status::Permanent(msg + " (create the database first: CREATE DATABASE …)");
    default:
      return Status::Permanent(msg);
  }
}

}  // namespace idem::mysql
