#include "service/running_idem.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace idem::testing {

RunningIdem::RunningIdem(std::vector<std::string> args, const std::string& cwd, int pipe_bytes) {
  args.insert(args.begin(), IDEM_CLI_PATH);
  int fds[2];
  if (pipe(fds) != 0) return;
  if (pipe_bytes > 0 && fcntl(fds[1], F_SETPIPE_SZ, pipe_bytes) < 0) {
    close(fds[0]);
    close(fds[1]);
    return;
  }
  pid_ = fork();
  if (pid_ == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  out_ = fdopen(fds[0], "r");
}

RunningIdem::~RunningIdem() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_) fclose(out_);
}

nlohmann::json RunningIdem::WaitFor(const std::function<bool(const nlohmann::json&)>& done) {
  char* buf = nullptr;
  size_t cap = 0;
  nlohmann::json found = {{"event", "eof"}};
  while (out_ && getline(&buf, &cap, out_) > 0) {
    std::string line(buf);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    raw_.push_back(line);
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) j = {{"event", "not_json"}, {"text", line}};
    lines_.push_back(j);
    if (done(j)) {
      found = j;
      break;
    }
  }
  free(buf);
  return found;
}

void RunningIdem::Signal(int sig) {
  if (pid_ > 0) kill(pid_, sig);
}

int RunningIdem::Wait() {
  WaitFor([](const nlohmann::json&) { return false; });
  int status = 0;
  if (pid_ > 0 && waitpid(pid_, &status, 0) == pid_) pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string RunningIdem::Output() const {
  std::string all;
  for (const std::string& l : raw_) all += l + "\n";
  return all;
}

}  // namespace idem::testing
