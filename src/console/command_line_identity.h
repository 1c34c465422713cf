// Who runs `idem dlq replay/purge`, established rather than typed:
//   - IDEM_OPERATOR names a configured operator and IDEM_OPERATOR_SECRET must
//     match its secret_hash (role as configured);
//   - otherwise the OS account running the process (getpwuid(geteuid())),
//     recorded as such: whoever can reach the broker and the store from a shell
//     is accountable under their own login.
#pragma once

#include "console/console_config.h"
#include "console/identity.h"
#include "idem/status.h"

namespace idem::console {

// `config` may be null (no --config): then IDEM_OPERATOR cannot be checked and
// is refused. PermissionDenied-like errors come back as InvalidArgument with
// what to set.
Result<Identity> CommandLineIdentity(const ConsoleConfig* config);

}  // namespace idem::console
