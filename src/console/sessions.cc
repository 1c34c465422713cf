#include "console/sessions.h"

#include "console/secret_hash.h"

namespace idem::console {

Session Sessions::Create(const Identity& who) {
  const int64_t now = env_->NowMs();
  Session s{RandomHex(32), RandomHex(32), who, now + ttl_ms_};
  std::lock_guard<std::mutex> lock(mu_);
  // Logins that were never logged out must not pile up for ever.
  for (auto it = live_.begin(); it != live_.end();) it = it->second.expires_ms <= now ? live_.erase(it) : std::next(it);
  live_[s.id] = s;
  return s;
}

std::optional<Session> Sessions::Find(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(id);
  if (it == live_.end()) return std::nullopt;
  if (it->second.expires_ms <= env_->NowMs()) {
    live_.erase(it);
    return std::nullopt;
  }
  return it->second;
}

void Sessions::End(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  live_.erase(id);
}

}  // namespace idem::console
