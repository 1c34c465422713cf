#include "service/supervise.h"

#include <signal.h>

#include <cstdlib>
#include <ctime>
#include <iostream>
#include <limits>

namespace idem::service {
namespace {

sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

// The next stop signal within `slice_ms`, or 0.
int NextSignal(int64_t slice_ms) {
  const sigset_t set = StopSignals();
  timespec ts{static_cast<time_t>(slice_ms / 1000), static_cast<long>((slice_ms % 1000) * 1'000'000)};
  const int sig = sigtimedwait(&set, nullptr, &ts);
  return sig > 0 ? sig : 0;
}

}  // namespace

void BlockStopSignals() {
  const sigset_t set = StopSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

bool StopSignalPending() {
  sigset_t pending;
  sigemptyset(&pending);
  if (sigpending(&pending) != 0) return false;
  return sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1;
}

int Supervise(Service& service, const ServiceConfig& config, Env* env, JsonLog* log) {
  constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  constexpr int64_t kSliceMs = 50;  // how often the worker count and the bounds are looked at
  auto now_ms = [env] { return env->MonotonicMicros() / 1000; };
  int64_t stop_deadline = kNever, abandon_deadline = kNever;
  int signals = 0;
  while (service.running() > 0) {
    const int64_t now = now_ms();
    if (abandon_deadline == kNever && now >= stop_deadline) {
      log->Warn("shutdown_timeout", {{"shutdown_timeout_ms", config.shutdown_timeout_ms},
                                     {"workers_running", service.running()},
                                     {"action", "abandoning the deliveries still held"}});
      service.Abandon();
      abandon_deadline = now + config.abandon_timeout_ms;
    }
    if (now >= abandon_deadline) {
      // A handler that never returns cannot be joined; the process ends around it.
      log->Error("exit_with_workers_running", {{"workers_running", service.running()},
                                               {"abandon_timeout_ms", config.abandon_timeout_ms},
                                               {"exit_code", 1}});
      std::cout.flush();
      std::_Exit(1);
    }
    service.MaintainIfDue();
    const int sig = NextSignal(kSliceMs);
    if (sig == 0) continue;
    ++signals;
    const char* name = sig == SIGTERM ? "SIGTERM" : "SIGINT";
    if (signals == 1) {
      log->Info("signal", {{"signal", name}, {"action", "stop polling; finish and settle the current batch"}});
      service.Stop();
      stop_deadline = now + config.shutdown_timeout_ms;
    } else if (abandon_deadline == kNever) {
      log->Warn("signal", {{"signal", name}, {"action", "abandon the deliveries in flight and exit"}});
      service.Abandon();
      abandon_deadline = now + config.abandon_timeout_ms;
    }
  }
  const bool abandoned = abandon_deadline != kNever;
  const int code = abandoned ? 1 : 0;
  log->Info("stopped", {{"exit_code", code}, {"abandoned", abandoned}});
  return code;
}

}  // namespace idem::service
