// ReadinessMonitor: runs the readiness probe (service/readiness.h) on a thread
// of its own, so that /metrics, /healthz and /readyz never wait behind a store
// or broker that is slow to answer — a SQLite file another connection holds a
// write transaction on makes a probe wait for the lock (busy_timeout, 10 s),
// and a Prometheus scrape would time out behind it.
//
// A request asks for a probe and waits for one that began after it, up to
// `wait_ms`; when none finishes in time it gets the last finished probe's
// report, marked as such. The HTTP thread so never takes a store's or a
// broker's lock itself.
//
// Thread safety: Latest may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "idem/env.h"
#include "service/readiness.h"

namespace idem::service {

struct ReadinessView {
  ReadinessReport report;  // of the last probe that finished (not ready when none has)
  bool fresh = false;      // that probe began after the request
  bool probed = false;     // some probe has finished
  int64_t probe_running_ms = 0;  // when not fresh: how long the probe under way has run
};

class ReadinessMonitor {
 public:
  // `readiness` and `env` must outlive this object. Starts the probing thread.
  ReadinessMonitor(Readiness* readiness, Env* env);
  ~ReadinessMonitor();  // waits for a probe under way to end

  ReadinessView Latest(int64_t wait_ms);

 private:
  void Loop();

  Readiness* readiness_;
  Env* env_;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t requested_ = 0;  // requests so far
  uint64_t serving_ = 0;    // the requests the probe under way (or the last) answers
  uint64_t answered_ = 0;   // the requests the last finished probe answers
  int64_t probe_started_ms_ = 0;
  bool probing_ = false;
  bool probed_ = false;
  bool stop_ = false;
  ReadinessReport last_;
  std::thread thread_;
};

}  // namespace idem::service
