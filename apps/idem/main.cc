// idem — exactly-once business effects over at-least-once brokers.
#include <iostream>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "idem turns at-least-once message delivery into exactly-once business effects.\n"
      "The embedded default needs no server: a queue file and a SQLite store.\n\n"
      "Start with:  idem demo          (the double-charge incident, with protection off and on)\n"
      "             idem <command> --help"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every command");
  idem::cli::AddPublishCommand(app);
  idem::cli::AddQueueCommand(app);
  idem::cli::AddDlqCommand(app);
  idem::cli::AddDemoCommand(app);
  idem::cli::AddSimCommand(app);
  idem::cli::AddBenchCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const idem::cli::CliError& e) {
    std::cerr << "idem: " << e.what() << "\n";
    return e.exit_code;
  }
  return 0;
}
