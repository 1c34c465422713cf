// Each sub-command registers itself on the CLI11 app and runs from a callback.
// A command reports failure by throwing CliError: main prints the message and
// exits with its code (2 = bad input or usage, 1 = the operation failed).
#pragma once

#include <CLI/CLI.hpp>
#include <stdexcept>
#include <string>

namespace idem::cli {

struct CliError : std::runtime_error {
  CliError(const std::string& what, int code = 1) : std::runtime_error(what), exit_code(code) {}
  int exit_code;
};

void AddPublishCommand(CLI::App& app);
void AddQueueCommand(CLI::App& app);
void AddDlqCommand(CLI::App& app);
void AddSimCommand(CLI::App& app);
void AddDemoCommand(CLI::App& app);
void AddBenchCommand(CLI::App& app);
void AddReconcileCommand(CLI::App& app);
void AddRunCommand(CLI::App& app);
void AddRecordsCommand(CLI::App& app);
void AddOutboxCommand(CLI::App& app);
void AddConsoleCommand(CLI::App& app);
void AddSchemaCommand(CLI::App& app);

}  // namespace idem::cli
