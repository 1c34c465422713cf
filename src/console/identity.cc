#include "console/console_config.h"
#include "console/identity.h"

namespace idem::console {

const char* RoleName(Role role) { return role == Role::kOperator ? "operator" : "read-only"; }

const OperatorConfig* ConsoleConfig::Find(const std::string& name) const {
  for (const OperatorConfig& o : operators)
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace idem::console
