// The query of a broker URL ("?name=value&name=value"), split for the
// adapters' own parsers (amqp://, kafka://).
#pragma once

#include <sstream>
#include <string>

#include "idem/status.h"

namespace idem {

// Calls `set(name, value)` for each parameter of `query` (the text after '?'),
// in order, and stops at its first error. An empty parameter ("&&") is skipped;
// one without '=' is an error naming `scheme`.
template <class Set>
Status ForEachQueryParameter(const std::string& query, const std::string& scheme, Set&& set) {
  std::stringstream in(query);
  for (std::string pair; std::getline(in, pair, '&');) {
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    if (eq == std::string::npos)
      return Status::InvalidArgument(scheme + " URL: parameter '" + pair + "' needs a value (name=value)");
    Status s = set(pair.substr(0, eq), pair.substr(eq + 1));
    if (!s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace idem
