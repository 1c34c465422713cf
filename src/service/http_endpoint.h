// HttpEndpoint: the service's one HTTP port.
//
//   GET /metrics   the Prometheus text format (ops/metrics.h), after a readiness
//                  probe so the dead-letter, backlog and idem_up gauges are fresh
//   GET /healthz   200 "ok" while the process serves requests
//   GET /readyz    200 when the broker and the store answer and the schema is
//                  current, else 503 (also while `idem run` is still starting);
//                  the JSON body says what failed
//
// The probes run on a thread of their own (service/readiness_monitor.h): a
// request waits for a fresh one at most kProbeWaitMs, then answers from the
// last probe that finished, so every answer comes within a second even while
// a store transaction is stuck.
//   /console/…     the dead-letter console, when mounted (console/console_server.h)
//
// Without metrics and readiness (null) only /healthz and the console are served
// (`idem console` on its own).
//
// Thread safety: Start and Stop on one thread; requests run on the server's own.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "idem/status.h"
#include "ops/metrics.h"
#include "service/json_log.h"
#include "service/readiness.h"
#include "service/readiness_monitor.h"

namespace httplib {
class Server;
}
namespace idem::console {
class Console;
}

namespace idem::service {

class HttpEndpoint {
 public:
  HttpEndpoint(ops::ServiceMetrics* metrics, Readiness* readiness);
  ~HttpEndpoint();  // stops the server

  // Binds `listen` ("HOST:PORT"; port 0 picks a free one) and serves in a thread.
  // Returns the bound port, or Unavailable naming the address.
  Result<int> Start(const std::string& listen);
  // Serves `console` under /console too. Call before Start; it must outlive Stop.
  void MountConsole(console::Console& console);
  void Stop();

  // How long a request waits for a fresh readiness probe.
  static constexpr int64_t kProbeWaitMs = 800;

 private:
  ops::ServiceMetrics* metrics_;
  Readiness* readiness_;
  std::unique_ptr<ReadinessMonitor> monitor_;  // null without readiness
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::atomic<bool> listen_returned_{false};
};

}  // namespace idem::service
