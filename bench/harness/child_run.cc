#include "harness/child_run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace idem::bench {

Result<nlohmann::json> RunInChild(const std::function<nlohmann::json()>& work) {
  int fds[2];
  if (pipe(fds) != 0) return Status::IOError(std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);  // nothing buffered may be written twice
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return Status::IOError(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    int code = 0;
    try {
      out = work().dump();
    } catch (const std::exception& e) {
      out = nlohmann::json{{"child_error", e.what()}}.dump();
      code = 1;
    }
    for (size_t done = 0; done < out.size();) {
      const ssize_t n = write(fds[1], out.data() + done, out.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) _exit(2);
      done += static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(code);  // no atexit handlers or static destructors of the parent's state
  }
  close(fds[1]);
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status))
    return Status::Permanent("the run's child process was killed by signal " + std::to_string(WTERMSIG(status)) +
                             " (" + strsignal(WTERMSIG(status)) + ")");
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return Status::Permanent("the run's child process exited with status " +
                                                 std::to_string(WEXITSTATUS(status)) + " and no readable result");
  if (j.contains("child_error")) return Status::Permanent("the run threw: " + j["child_error"].get<std::string>());
  return j;
}

}  // namespace idem::bench
