// Runs the real `idem` binary, as a user would, for the command-line tests.
#pragma once

#include <string>
#include <vector>

#include "testing/test_util.h"

namespace idem::testing {

// `idem ARGS...` with `input` on stdin; the exit code and both outputs.
inline ProcessResult Idem(std::vector<std::string> args, const std::string& input = "") {
  args.insert(args.begin(), IDEM_CLI_PATH);
  return RunProcess(args, input);
}

}  // namespace idem::testing
