// idem run: the consumer as a service. One TOML file names the broker, the
// store, the consumer groups and their handlers (docs/operations.md); the
// process runs until SIGTERM or SIGINT, logging JSON lines on stdout.
//
// Exit status: 0 after a clean stop (every batch in hand settled); 1 when the
// service could not start (a store or broker still unreachable after [service]
// startup_timeout_ms of retries), or a second signal (or the shutdown bound)
// abandoned deliveries; 2 when the file is wrong, or a declarative step names
// a table or column the store does not have (nothing was started).
#include <unistd.h>

#include <iostream>

#include "cli_util.h"
#include "console/console_server.h"
#include "payments/service_handlers.h"
#include "ops/metrics.h"
#include "service/config.h"
#include "service/http_endpoint.h"
#include "service/json_log.h"
#include "service/readiness.h"
#include "service/service.h"
#include "service/startup_wait.h"
#include "service/supervise.h"

namespace idem::cli {
namespace {

struct RunArgs {
  std::string config;
  std::string check;
  bool connect = false;  // with --check: open the store and the broker as a start does
  bool until_idle = false;
  std::string http_listen;  // overrides [service] http_listen
};

service::HandlerRegistry Registry() {
  service::HandlerRegistry registry;
  if (Status s = payments::RegisterServiceHandlers(registry); !s.ok())
    throw CliError("cannot register the payments handlers: " + s.ToString());
  return registry;
}

service::ServiceConfig LoadOrDie(const std::string& path) {
  auto config = service::LoadConfig(path);
  if (!config.ok()) throw CliError(config.status().message(), 2);
  return *config;
}

void Check(const std::string& path, bool connect) {
  service::ServiceConfig config = LoadOrDie(path);
  const service::HandlerRegistry registry = Registry();
  if (Status s = service::CheckConfig(config, registry); !s.ok()) throw CliError(s.message(), 2);
  int workers = 0;
  size_t steps = 0;
  for (const auto& k : config.consumers) {
    workers += k.workers;
    for (const auto& h : k.handlers) steps += h.steps.size();
  }
  std::string connected;
  if (connect) {
    // Everything a start does before its first poll, and nothing after: the
    // same checks, and no message taken.
    Env* env = Env::Default();
    service::JsonLog log(&std::cerr, env);
    ops::ServiceMetrics metrics;
    auto svc = service::Service::Open(config, registry, env, &log, &metrics);
    if (!svc.ok())
      throw CliError(svc.status().message(), svc.status().code() == Status::Code::kInvalidArgument ? 2 : 1);
    connected = "; store and broker reached, " +
                (steps ? std::to_string(steps) + " declared step(s) match the store" : std::string("no declared steps"));
  }
  std::cout << path << ": OK (" << config.consumers.size() << " consumer group(s), " << workers
            << " worker(s); broker " << RedactUrl(config.broker_url) << ", store " << RedactUrl(config.store_url)
            << (config.fast_filter_url.empty() ? "" : ", fast filter " + RedactUrl(config.fast_filter_url))
            << connected << ")\n";
}

int Serve(const RunArgs& a) {
  service::ServiceConfig config = LoadOrDie(a.config);
  if (!a.http_listen.empty()) config.http_listen = a.http_listen;
  const service::HandlerRegistry registry = Registry();
  if (Status s = service::CheckConfig(config, registry); !s.ok()) throw CliError(s.message(), 2);
  Env* env = Env::Default();
  service::JsonLog log(STDOUT_FILENO, env);  // write(2) per line: a SIGKILL loses no line written
  const service::BackendLogRoute backend_log(&log);  // Kafka's adapter and librdkafka log here too
  // Before any thread exists, so every worker inherits the blocked mask.
  service::BlockStopSignals();
  ops::ServiceMetrics metrics;
  // Declared before the HTTP endpoint, so they outlive the requests it serves.
  std::unique_ptr<service::Service> svc;
  std::unique_ptr<console::Console> console;
  service::Readiness readiness(config, env, &metrics);
  readiness.SetStarting(true);
  service::HttpEndpoint http(&metrics, &readiness);
  auto start_http = [&] {
    if (config.http_listen.empty()) return;
    auto port = http.Start(config.http_listen);
    if (!port.ok()) {
      log.Error("start_failed", {{"error", port.status().ToString()}});
      throw CliError(port.status().message(), 1);
    }
    log.Info("http_listening", {{"listen", config.http_listen},
                                {"port", *port},
                                {"paths", config.console.enabled
                                              ? nlohmann::json{"/metrics", "/healthz", "/readyz", "/console/"}
                                              : nlohmann::json{"/metrics", "/healthz", "/readyz"}}});
  };
  if (config.console.enabled && config.http_listen.empty())
    throw CliError(config.path + ": [console] is served on the HTTP port: set [service] http_listen = \"HOST:PORT\"", 2);
  // The console's routes must be mounted before the port opens, and the console
  // needs the store: with it the port opens after the start-up wait; without
  // it before, so /readyz answers 503 while the store or broker is not up yet.
  if (!config.console.enabled) start_http();
  auto open_all = [&]() -> Status {
    auto opened = service::Service::Open(config, registry, env, &log, &metrics);
    if (!opened.ok()) return opened.status();
    if (config.console.enabled) {
      auto c = console::Console::Open(
          {config.console, config.broker_url, config.store_url,
           [&log](const std::string& event, const nlohmann::json& fields) { log.Info(event, fields); }},
          env);
      if (!c.ok()) return c.status();
      console = std::move(*c);
    }
    svc = std::move(*opened);
    return Status::OK();
  };
  service::StartupWaitOptions wait;
  wait.timeout_ms = config.startup_timeout_ms;
  const service::StartupWaitResult started =
      service::RetryWhileUnavailable(open_all, wait, env, &log, service::StopSignalPending);
  if (started.stopped) {
    log.Info("stopped", {{"during", "start-up"}, {"attempts", started.attempts}});
    return 0;  // a stop signal while waiting: nothing was taken from the broker
  }
  if (!started.status.ok()) {
    log.Error("start_failed", {{"error", started.status.ToString()}, {"attempts", started.attempts}});
    throw CliError(started.status.message(), started.status.code() == Status::Code::kInvalidArgument ? 2 : 1);
  }
  readiness.WatchRelay(svc->relay());
  if (console) {
    http.MountConsole(*console);
    start_http();
  }
  readiness.SetStarting(false);  // everything is open; the workers start now
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& k : config.consumers) groups.push_back({{"group", k.group}, {"workers", k.workers}});
  log.Info("started", {{"config", config.path},
                       {"broker", RedactUrl(config.broker_url)},
                       {"store", RedactUrl(config.store_url)},
                       {"fast_filter", RedactUrl(config.fast_filter_url)},
                       {"consumers", groups}});
  svc->Start(a.until_idle);
  const int code = service::Supervise(*svc, config, env, &log);
  http.Stop();
  return code;
}

}  // namespace

void AddRunCommand(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run",
                                 "Run the consumer groups of a configuration file until SIGTERM or SIGINT.\n"
                                 "The first signal stops polling and settles the batch in hand (exit 0); a\n"
                                 "second one gives the deliveries in flight back to the broker (exit 1).\n"
                                 "Logs are JSON lines on stdout. The keys: docs/operations.md.\n"
                                 "Before taking any message, every start checks that each table and column\n"
                                 "a declarative step names exists in the store (after [store] setup_sql),\n"
                                 "with a type the step can use, and that the broker answers; a step that\n"
                                 "does not fit exits 2 at its FILE:LINE:COLUMN. Examples:\n"
                                 "  idem run --config examples/payments/payments.toml\n"
                                 "  idem run --check examples/payments/payments.toml --connect");
  auto* config = cmd->add_option("--config", args->config, "The configuration file (TOML) to run");
  auto* check = cmd->add_option("--check", args->check,
                                "Validate this configuration file and exit (0: valid; 2: the error, FILE:LINE:COLUMN)");
  config->excludes(check);
  cmd->add_flag("--connect", args->connect,
                "With --check: also do what a start does before its first poll (open the store, create the\n"
                "handler sets' tables, run [store] setup_sql, reach the broker) and check every table and\n"
                "column the declarative steps name; takes no message (2: a step does not fit the store;\n"
                "1: the store or the broker cannot be reached). Without it --check opens nothing")
      ->needs(check);
  cmd->add_flag("--until-idle", args->until_idle, "Stop each worker once a poll finds nothing (batch runs, tests)")
      ->excludes(check);
  cmd->add_option("--http-listen", args->http_listen,
                  "HOST:PORT for /metrics, /healthz and /readyz, instead of [service] http_listen (port 0: any free one)")
      ->excludes(check);
  cmd->callback([args] {
    if (!args->check.empty()) return Check(args->check, args->connect);
    if (args->config.empty()) throw CliError("idem run needs --config FILE (or --check FILE)", 2);
    const int code = Serve(*args);
    if (code != 0) throw CliError("stopped after abandoning deliveries in flight (the broker delivers them again)", code);
  });
}

}  // namespace idem::cli
