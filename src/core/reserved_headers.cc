#include "core/reserved_headers.h"

#include <vector>

namespace idem {

bool IsReservedHeader(std::string_view name) {
  if (name.substr(0, kReservedHeaderPrefix.size()) != kReservedHeaderPrefix) return false;
  return name != "x-idem-key" && name != "x-idem-published-ms" && name != "x-idem-outbox-id";
}

std::string DisownedHeaderName(std::string_view name) {
  return std::string(kDisownedHeaderPrefix) + std::string(name);
}

int DisownReservedHeaders(std::map<std::string, std::string>& headers, bool (*also_reserved)(std::string_view)) {
  std::vector<std::string> names;
  for (const auto& [name, value] : headers)
    if (IsReservedHeader(name) || (also_reserved && also_reserved(name))) names.push_back(name);
  for (const std::string& name : names) {
    auto node = headers.extract(name);
    headers.emplace(DisownedHeaderName(name), std::move(node.mapped()));  // keeps a value already there
  }
  return static_cast<int>(names.size());
}

}  // namespace idem
