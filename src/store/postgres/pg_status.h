// Mapping libpq failures to Status codes that say what to do next.
#pragma once

#include <libpq-fe.h>

#include <string>
#include <string_view>

#include "idem/status.h"

namespace idem::pg {

// The Status for a failed statement. `res` may be null (libpq could not even
// build a result). A lost connection is Unavailable: nothing in the open
// transaction was committed, and the next transaction reconnects.
Status StatusFromPg(PGconn* conn, const PGresult* res, std::string_view what);

// True when the failure means the connection (or the server) went away, so the
// outcome of a COMMIT sent on it is unknown.
bool ConnectionLost(PGconn* conn, const PGresult* res);

// libpq's message text without its trailing newline ("" for null).
std::string TrimmedMessage(const char* text);

}  // namespace idem::pg
