// The test servers' scripts (scripts/servers/*.sh), for tests that restart
// the shared server and must first check it is the one the script manages.
#pragma once

#include <string>

namespace idem::testing {

// What `script url` prints (its last newline removed), or "" when it fails.
std::string ServerScriptUrl(const std::string& script);

}  // namespace idem::testing
