#include "service/handler_registry.h"

namespace idem::service {

Status HandlerRegistry::Add(const std::string& name, HandlerSet set) {
  if (!set.make) return Status::InvalidArgument("handler set '" + name + "' has no make function");
  if (!sets_.emplace(name, std::move(set)).second)
    return Status::AlreadyExists("a handler set named '" + name + "' is registered already");
  return Status::OK();
}

const HandlerSet* HandlerRegistry::Find(const std::string& name) const {
  auto it = sets_.find(name);
  return it == sets_.end() ? nullptr : &it->second;
}

std::string HandlerRegistry::Names() const {
  std::string out;
  for (const auto& [name, set] : sets_) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "(none)" : out;
}

}  // namespace idem::service
