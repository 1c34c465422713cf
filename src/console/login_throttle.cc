#include "console/login_throttle.h"

#include <algorithm>

namespace idem::console {

int64_t LoginThrottle::WaitMs(const Failures& f, int64_t now) const {
  if (f.count < policy_.free_failures || now - f.last_ms >= policy_.forget_after_ms) return 0;
  // Doubling stops at max_wait_ms long before the shift could overflow.
  int64_t wait = policy_.first_wait_ms;
  for (int i = policy_.free_failures; i < f.count && wait < policy_.max_wait_ms; ++i) wait *= 2;
  return std::max<int64_t>(0, f.last_ms + std::min(wait, policy_.max_wait_ms) - now);
}

void LoginThrottle::Count(Failures& f, int64_t now) const {
  if (now - f.last_ms >= policy_.forget_after_ms) f.count = 0;
  ++f.count;
  f.last_ms = now;
}

LoginThrottle::Failures& LoginThrottle::AddressSlot(const std::string& address, int64_t now) {
  if (auto it = addresses_.find(address); it != addresses_.end()) return it->second;
  if (addresses_.size() >= policy_.max_addresses) {
    std::erase_if(addresses_, [&](const auto& e) { return now - e.second.last_ms >= policy_.forget_after_ms; });
    if (addresses_.size() >= policy_.max_addresses)
      addresses_.erase(std::min_element(addresses_.begin(), addresses_.end(), [](const auto& a, const auto& b) {
        return a.second.last_ms < b.second.last_ms;
      }));
  }
  return addresses_[address];
}

int64_t LoginThrottle::Admit(const std::string& operator_name, const std::string& address) {
  const int64_t now = env_->NowMs();
  std::lock_guard<std::mutex> lock(mu_);
  Failures* op = operator_name.empty() ? nullptr : &operators_[operator_name];
  auto seen = addresses_.find(address);
  const int64_t wait = std::max(op ? WaitMs(*op, now) : 0,
                                seen == addresses_.end() ? 0 : WaitMs(seen->second, now));
  if (wait > 0) return wait;
  if (op) Count(*op, now);
  Count(AddressSlot(address, now), now);
  return 0;
}

void LoginThrottle::Failed(const std::string& operator_name, const std::string& address) {
  const int64_t now = env_->NowMs();
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = operators_.find(operator_name); it != operators_.end()) it->second.last_ms = now;
  if (auto it = addresses_.find(address); it != addresses_.end()) it->second.last_ms = now;
}

void LoginThrottle::Succeeded(const std::string& operator_name, const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  operators_.erase(operator_name);
  addresses_.erase(address);
}

size_t LoginThrottle::addresses() {
  std::lock_guard<std::mutex> lock(mu_);
  return addresses_.size();
}

}  // namespace idem::console
