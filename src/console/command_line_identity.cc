#include "console/command_line_identity.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

#include "console/secret_hash.h"

namespace idem::console {

Result<Identity> CommandLineIdentity(const ConsoleConfig* config) {
  const char* name = std::getenv("IDEM_OPERATOR");
  if (name && *name) {
    if (!config || config->operators.empty())
      return Status::InvalidArgument(std::string("IDEM_OPERATOR=") + name +
                                     " can only be checked against the [[console.operator]] tables of a "
                                     "configuration: pass --config FILE, or unset IDEM_OPERATOR to act as your OS account");
    const OperatorConfig* op = config->Find(name);
    const char* secret = std::getenv("IDEM_OPERATOR_SECRET");
    // One message for both: which of the two was wrong is for the operator to know.
    if (!op || !secret || !VerifySecret(secret, op->secret_hash))
      return Status::InvalidArgument(std::string("operator \"") + name +
                                     "\" is not configured or IDEM_OPERATOR_SECRET does not match its secret_hash "
                                     "(a secret is at least " + std::to_string(kMinSecretBytes) +
                                     " bytes, not all whitespace)");
    return Identity{op->name, op->role, "operator secret"};
  }
  const uid_t uid = geteuid();
  const passwd* pw = getpwuid(uid);
  const std::string account = pw && pw->pw_name ? pw->pw_name : "uid" + std::to_string(uid);
  return Identity{account, Role::kOperator, "os account (uid " + std::to_string(uid) + ")"};
}

}  // namespace idem::console
