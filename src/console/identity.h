// Identity: who asks the dead-letter console to act, as it was established —
// a console login, an operator secret checked against the configuration, or
// the OS account running the command. The audit records all three parts, so a
// row never rests on a name someone merely typed.
#pragma once

#include <string>

namespace idem::console {

enum class Role {
  kReadOnly,  // sees dead letters and the audit; cannot replay or purge
  kOperator,  // may also replay and purge
};

// "read-only", "operator".
const char* RoleName(Role role);

struct Identity {
  std::string name;              // the operator's configured name, or the OS account
  Role role = Role::kReadOnly;
  std::string authenticated_by;  // "console login", "operator secret", "os account (uid N)"
};

}  // namespace idem::console
