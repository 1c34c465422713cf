#include "service/http_endpoint.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "console/console_server.h"

namespace idem::service {

HttpEndpoint::HttpEndpoint(ops::ServiceMetrics* metrics, Readiness* readiness)
    : metrics_(metrics), readiness_(readiness), server_(std::make_unique<httplib::Server>()) {
  server_->Get("/healthz", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok\n", "text/plain"); });
  if (!metrics_ || !readiness_) return;
  monitor_ = std::make_unique<ReadinessMonitor>(readiness_, Env::Default());
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    (void)monitor_->Latest(kProbeWaitMs);  // refreshes the gauges the probe sets, when it answers in time
    res.set_content(metrics_->Scrape(), "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    const ReadinessView v = monitor_->Latest(kProbeWaitMs);
    const ReadinessReport& r = v.report;
    nlohmann::json body{{"ready", r.ready()},
                        {"broker", r.broker_ok ? "ok" : r.broker_error},
                        {"store", r.store_ok ? "ok" : r.store_error}};
    if (!v.fresh && v.probed)
      body["probe"] = "the probe under way has not answered for " + std::to_string(v.probe_running_ms) +
                      " ms (a dependency is slow or locked); this is the last finished probe's answer";
    if (!r.outbox_relay.empty()) body["outbox_relay"] = r.outbox_relay;
    if (r.starting) body["starting"] = "still opening the store and the broker (see the start_waiting log lines)";
    res.status = r.ready() ? 200 : 503;
    res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", "application/json");
  });
}

HttpEndpoint::~HttpEndpoint() {
  Stop();
  monitor_.reset();  // after the server: no request uses it any more
}

void HttpEndpoint::MountConsole(console::Console& console) { console.Mount(*server_); }

Result<int> HttpEndpoint::Start(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  const std::string host = listen.substr(0, colon);
  int port = 0;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (const std::exception&) {
    return Status::InvalidArgument("[service] http_listen \"" + listen + "\": the port is not a number");
  }
  // cpp-httplib 0.11 has no wait_until_ready: bind first (errors come back here), then serve.
  int bound = port;
  if (port == 0) bound = server_->bind_to_any_port(host);
  else if (!server_->bind_to_port(host, port)) bound = -1;
  if (bound <= 0)
    return Status::Unavailable("cannot listen on " + listen +
                               " for /metrics, /healthz and /readyz: is the port in use or the host wrong?");
  thread_ = std::thread([this] {
    server_->listen_after_bind();
    listen_returned_ = true;
  });
  return bound;
}

void HttpEndpoint::Stop() {
  if (thread_.joinable()) {
    // stop() does nothing until the serving loop runs; it starts right after the thread does.
    while (!server_->is_running() && !listen_returned_) std::this_thread::yield();
    server_->stop();
    thread_.join();
  }
}

}  // namespace idem::service
