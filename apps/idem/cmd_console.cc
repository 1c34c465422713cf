// idem console: the dead-letter console in the browser on its own HTTP port,
// for the broker and store of a configuration (the same file idem run reads;
// `idem run` serves the console on its own port when [console] is present).
// idem console hash-secret: the secret_hash for a [[console.operator]] table.
//
// Exit status: 0 after SIGTERM or SIGINT; 1 when it cannot serve; 2 when the
// file or the arguments are wrong.
#include <signal.h>

#include <iostream>
#include <iterator>

#include "cli_util.h"
#include "console/console_server.h"
#include "console/secret_hash.h"
#include "service/config.h"
#include "service/http_endpoint.h"
#include "service/json_log.h"
#include "service/supervise.h"

namespace idem::cli {
namespace {

struct ConsoleArgs {
  std::string config;
  std::string listen;  // overrides [service] http_listen
};

void WaitForStopSignal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  int sig = 0;
  sigwait(&set, &sig);
}

void Serve(const ConsoleArgs& a) {
  auto config = service::LoadConfig(a.config);
  if (!config.ok()) throw CliError(config.status().message(), 2);
  if (!config->console.enabled)
    throw CliError(a.config + ": no [console] table: add one with [[console.operator]] entries (docs/operations.md)", 2);
  const std::string listen = a.listen.empty() ? config->http_listen : a.listen;
  if (listen.empty()) throw CliError("where to listen: --listen HOST:PORT or [service] http_listen in " + a.config, 2);
  Env* env = Env::Default();
  service::JsonLog log(&std::cout, env);
  const service::BackendLogRoute backend_log(&log);  // the Kafka adapter's lines are JSON lines too
  service::BlockStopSignals();  // before the server's threads exist, so only sigwait sees them
  auto console = console::Console::Open(
      {config->console, config->broker_url, config->store_url,
       [&log](const std::string& event, const nlohmann::json& fields) { log.Info(event, fields); }},
      env);
  if (!console.ok()) throw CliError(console.status().message());
  service::HttpEndpoint http(nullptr, nullptr);
  http.MountConsole(**console);
  auto port = http.Start(listen);
  if (!port.ok()) throw CliError(port.status().message());
  log.Info("http_listening", {{"listen", listen}, {"port", *port}, {"paths", {"/healthz", "/console/"}}});
  WaitForStopSignal();
  http.Stop();
  log.Info("stopped", {});
}

void HashSecretFromStdin() {
  std::string secret((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  auto hash = console::HashSecret(secret);
  if (!hash.ok()) throw CliError(hash.status().message(), 2);
  std::cout << *hash << "\n";
}

}  // namespace

void AddConsoleCommand(CLI::App& app) {
  auto a = std::make_shared<ConsoleArgs>();
  auto* cmd = app.add_subcommand("console",
                                 "Serve the dead-letter console in the browser at http://HOST:PORT/console/ for the\n"
                                 "broker and store of a configuration, until SIGTERM or SIGINT. Operators log in\n"
                                 "with the secrets of its [[console.operator]] tables (docs/operations.md).");
  cmd->add_option("--config", a->config, "The configuration file (the one idem run reads)");
  cmd->add_option("--listen", a->listen, "HOST:PORT, instead of [service] http_listen (port 0: any free one)");
  auto* hash = cmd->add_subcommand("hash-secret",
                                   "Read a secret on standard input and print its secret_hash for [[console.operator]]\n"
                                   "(PBKDF2-HMAC-SHA256, salted). The secret must be at least " +
                                       std::to_string(console::kMinSecretBytes) +
                                       " bytes and not blank\n(exit 2 otherwise). Example: idem console hash-secret < "
                                       "secret.txt");
  hash->callback(HashSecretFromStdin);
  cmd->callback([a, hash] {
    if (hash->parsed()) return;
    if (a->config.empty()) throw CliError("idem console needs --config FILE (or the hash-secret sub-command)", 2);
    Serve(*a);
  });
}

}  // namespace idem::cli
