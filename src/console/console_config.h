// ConsoleConfig: the [console] table of the service configuration — the
// operators allowed in and how long a login lasts. Read by service/config.cc;
// docs/operations.md ("Console") lists the keys.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "console/identity.h"

namespace idem::console {

struct OperatorConfig {
  std::string name;
  Role role = Role::kReadOnly;
  std::string secret_hash;  // what `idem console hash-secret` printed (secret_hash.h)
  std::string where;        // "FILE:LINE:COLUMN" of its table, for errors
};

struct ConsoleConfig {
  bool enabled = false;                 // true when the file has a [console] table
  int64_t session_ttl_ms = 3'600'000;   // a login expires this long after it was made; default 1 h
  std::vector<OperatorConfig> operators;

  // The operator named `name`, or nullptr.
  const OperatorConfig* Find(const std::string& name) const;
};

}  // namespace idem::console
