#include "service/readiness_monitor.h"

#include <algorithm>
#include <chrono>

namespace idem::service {

ReadinessMonitor::ReadinessMonitor(Readiness* readiness, Env* env)
    : readiness_(readiness), env_(env), thread_([this] { Loop(); }) {}

ReadinessMonitor::~ReadinessMonitor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ReadinessMonitor::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || requested_ > serving_; });
    if (stop_) return;
    serving_ = requested_;  // every request made so far is answered by this probe
    probing_ = true;
    probe_started_ms_ = env_->NowMs();
    lock.unlock();
    ReadinessReport r = readiness_->Check();
    lock.lock();
    last_ = std::move(r);
    probed_ = true;
    probing_ = false;
    answered_ = serving_;
    cv_.notify_all();
  }
}

ReadinessView ReadinessMonitor::Latest(int64_t wait_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t mine = ++requested_;
  cv_.notify_all();
  // The wait bounds the answer, not the probe: a cv wait is the one place the
  // service's HTTP thread waits, and it never holds a dependency's lock.
  cv_.wait_for(lock, std::chrono::milliseconds(wait_ms), [&] { return stop_ || answered_ >= mine; });
  ReadinessView v;
  v.fresh = answered_ >= mine;
  v.probed = probed_;
  if (probed_) v.report = last_;
  else v.report.broker_error = v.report.store_error = "the first readiness probe has not finished yet";
  if (!v.fresh && probing_) v.probe_running_ms = std::max<int64_t>(0, env_->NowMs() - probe_started_ms_);
  return v;
}

}  // namespace idem::service
