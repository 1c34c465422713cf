#include "sim/sim_redis.h"

namespace idem::sim {
namespace {

class Connection final : public FastFilter {
 public:
  Connection(SimRedis* redis, const Incarnation* life) : redis_(redis), life_(life) {}
  Result<std::vector<FilterVerdict>> Mark(std::span<const FilterRequest> keys, int64_t lease_ms) override {
    if (life_->crashed) return Status::Unavailable("consumer process is down");
    return redis_->Mark(keys, lease_ms);
  }
  Status Finish(std::span<const FilterRequest> done, int64_t ttl_ms, std::span<const std::string> release) override {
    if (life_->crashed) return Status::Unavailable("consumer process is down");
    return redis_->Finish(done, ttl_ms, release);
  }

 private:
  SimRedis* redis_;
  const Incarnation* life_;
};

}  // namespace

std::unique_ptr<FastFilter> SimRedis::Connect(const Incarnation* life) {
  return std::make_unique<Connection>(this, life);
}

Status SimRedis::Up() {
  const int64_t now = dice_->env().NowMs();
  if (now < down_until_ms_) return Status::Unavailable("simulated Redis outage");
  if (dice_->Roll(Fault::kRedisOutage)) {
    down_until_ms_ = now + dice_->env().Range(500, 30'000);
    return Status::Unavailable("simulated Redis outage (starting)");
  }
  if (dice_->Roll(Fault::kRedisFailoverLoss)) keys_.clear();  // the new primary never saw them
  return Status::OK();
}

Result<std::vector<FilterVerdict>> SimRedis::Mark(std::span<const FilterRequest> requests, int64_t lease_ms) {
  IDEM_RETURN_IF_ERROR(Up());
  const int64_t now = dice_->env().NowMs();
  std::vector<FilterVerdict> out;
  out.reserve(requests.size());
  for (const FilterRequest& req : requests) {
    const std::string& k = req.key;
    auto it = keys_.find(k);
    if (it != keys_.end() && (it->second.expires_at_ms <= now || dice_->Roll(Fault::kRedisEvict))) {
      keys_.erase(it);
      it = keys_.end();
    }
    if (it == keys_.end()) {
      keys_[k] = Entry{false, req.fingerprint, now + lease_ms};  // SET k P:fp NX PX lease
      out.push_back(FilterVerdict::kNew);
    } else if (it->second.fingerprint != req.fingerprint) {
      out.push_back(FilterVerdict::kDifferentPayload);
    } else {
      out.push_back(it->second.done ? FilterVerdict::kDone : FilterVerdict::kInFlight);
    }
  }
  return out;
}

Status SimRedis::Finish(std::span<const FilterRequest> done, int64_t ttl_ms, std::span<const std::string> release) {
  IDEM_RETURN_IF_ERROR(Up());
  const int64_t now = dice_->env().NowMs();
  for (const FilterRequest& d : done) {
    const bool early = dice_->Roll(Fault::kRedisEarlyExpiry);
    keys_[d.key] = Entry{true, d.fingerprint, now + (early ? dice_->env().Range(1, 1000) : ttl_ms)};
  }
  for (const std::string& k : release) keys_.erase(k);
  return Status::OK();
}

}  // namespace idem::sim
