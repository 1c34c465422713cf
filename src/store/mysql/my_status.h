// Mapping MySQL/MariaDB error numbers to idem Status codes, so the pipeline
// knows what to do: a duplicate is AlreadyExists, a deadlock a
// TransactionConflict (the server already rolled the whole transaction back),
// a lock wait timeout Busy, a lost connection Unavailable.
#pragma once

#include <string>
#include <string_view>

#include "idem/status.h"

namespace idem::mysql {

// 2006 (server gone, between statements), 2013 (lost during a statement),
// 1927 (this session was killed), 1053 (server shutting down): the session and
// any transaction on it are gone.
bool IsConnectionLost(unsigned error_number);

// 1213: the server picked this transaction as a deadlock victim and rolled
// all of it back, savepoints included.
inline bool IsDeadlock(unsigned error_number) { return error_number == 1213; }

// `what` says which statement failed; `detail` is the server's message.
Status StatusFromMysql(unsigned error_number, std::string_view sqlstate, std::string_view detail,
                       std::string_view what);

}  // namespace idem::mysql
