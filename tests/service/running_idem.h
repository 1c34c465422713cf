// RunningIdem: an `idem` process the test talks to while it runs. Its stdout
// (the JSON-line log) is read line by line, so a test waits for what the
// service says it did — never for a length of time.
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace idem::testing {

class RunningIdem {
 public:
  // Starts IDEM_CLI_PATH args… in `cwd` (default: the test's own folder).
  // `pipe_bytes` > 0 shrinks the stdout pipe to that size (at least a page):
  // once the test stops reading, the process blocks in its next log write that
  // does not fit, which holds it at a known point of its work.
  explicit RunningIdem(std::vector<std::string> args, const std::string& cwd = "", int pipe_bytes = 0);
  ~RunningIdem();                                        // kills it if still running

  // Reads log lines until `done` returns true for one (returned), or the
  // process closes stdout (then an object with "event": "eof").
  nlohmann::json WaitFor(const std::function<bool(const nlohmann::json&)>& done);
  nlohmann::json WaitForEvent(const std::string& event) {
    return WaitFor([&](const nlohmann::json& j) { return j.value("event", "") == event; });
  }
  void Signal(int sig);
  // Reads the rest of the output and returns the exit code (-1: killed by a signal).
  int Wait();

  const std::vector<nlohmann::json>& lines() const { return lines_; }
  std::string Output() const;  // every line read so far, for failure messages

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  std::vector<nlohmann::json> lines_;
  std::vector<std::string> raw_;
};

}  // namespace idem::testing
