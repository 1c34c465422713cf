// idem — exactly-once business effects over at-least-once brokers.
//
// The exit status is the same contract on every command (and printed in every
// --help): 0 success, 1 the operation failed, 2 usage error. CLI11's own codes
// (104, 106, 109, …) are folded into 2, and no exception escapes main.
#include <iostream>

#include "build_commit.h"
#include "commands.h"
#include "connect/known_schemes.h"
#include "terminal_text.h"

#ifndef IDEM_VERSION
#error "IDEM_VERSION comes from the project version in CMake (apps/idem/CMakeLists.txt)"
#endif

namespace {

// "idem 0.1.0 (commit 1a2b3c4d5e6f, backends: sqlite postgres redis)": the
// version of the library and the tool, the commit it was built from, and the
// backends this binary can open (what it links, read from the wiring tables).
std::string VersionLine() {
  std::string backends;
  for (const std::string& name : idem::connect::LinkedComponents()) backends += (backends.empty() ? "" : " ") + name;
  return std::string("idem ") + IDEM_VERSION + " (commit " + IDEM_COMMIT + ", backends: " + backends + ")";
}

constexpr const char* kFooter =
    "Exit status: 0 success; 1 the operation failed (the message says why and what to do);\n"
    "2 usage error (unknown option, missing or out-of-range value: nothing was done).\n"
    "With --json, ids (dead-letter ids, message ids) are JSON strings: RabbitMQ's exceed 2^53.";

void SetFooterEverywhere(CLI::App* app) {
  if (app->get_footer().empty()) app->footer(kFooter);  // reconcile documents its own exit codes
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) SetFooterEverywhere(sub);
}

int Run(int argc, char** argv) {
  CLI::App app{
      "idem turns at-least-once message delivery into exactly-once business effects.\n"
      "The embedded default needs no server: a queue file and a SQLite store.\n\n"
      "Start with:  idem demo          (the double-charge incident, with protection off and on)\n"
      "             idem <command> --help"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every command");
  app.set_version_flag("--version", VersionLine(), "Print the version, the commit and the backends built in, and exit");
  idem::cli::AddPublishCommand(app);
  idem::cli::AddQueueCommand(app);
  idem::cli::AddDlqCommand(app);
  idem::cli::AddDemoCommand(app);
  idem::cli::AddSimCommand(app);
  idem::cli::AddBenchCommand(app);
  idem::cli::AddReconcileCommand(app);
  idem::cli::AddRunCommand(app);
  idem::cli::AddRecordsCommand(app);
  idem::cli::AddSchemaCommand(app);
  idem::cli::AddOutboxCommand(app);
  idem::cli::AddConsoleCommand(app);
  SetFooterEverywhere(&app);
  // CLI11 would answer an unknown command with "A subcommand is required".
  const std::string first = argc > 1 ? argv[1] : "";
  if (!first.empty() && first[0] != '-' &&
      app.get_subcommands([&](CLI::App* sub) { return sub->check_name(first); }).empty()) {
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
      names += (names.empty() ? "" : ", ") + sub->get_name();
    std::cerr << "idem: unknown command '" << first << "'; the commands are " << names << " (see: idem --help)\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with code 0; every real parse error is a usage error.
    const int printed = app.exit(e);
    return printed == 0 ? 0 : 2;
  } catch (const idem::cli::CliError& e) {
    // An error may quote a key, a topic or a reason a producer chose.
    std::cerr << "idem: " << idem::cli::TerminalSafeLines(e.what()) << "\n";
    return e.exit_code;  // 1 or 2; reconcile adds 3 and 4 (its --help)
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "idem: internal error: " << e.what() << " (a bug in idem: please report it with the command line)\n";
  } catch (...) {
    std::cerr << "idem: internal error: an unknown exception (a bug in idem: please report it with the command line)\n";
  }
  return 1;
}
