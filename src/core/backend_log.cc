#include "idem/backend_log.h"

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

namespace idem {
namespace {

std::mutex& HookMutex() {
  static std::mutex mu;
  return mu;
}

// Shared, so a line being written keeps its hook alive while another thread replaces it.
std::shared_ptr<const BackendLogHook>& Hook() {
  static std::shared_ptr<const BackendLogHook> hook;
  return hook;
}

const char* LevelName(BackendLogLevel level) {
  switch (level) {
    case BackendLogLevel::kDebug: return "debug";
    case BackendLogLevel::kInfo: return "info";
    case BackendLogLevel::kWarn: return "warn";
    case BackendLogLevel::kError: return "error";
  }
  return "info";
}

}  // namespace

void SetBackendLogHook(BackendLogHook hook) {
  std::shared_ptr<const BackendLogHook> next =
      hook ? std::make_shared<const BackendLogHook>(std::move(hook)) : nullptr;
  std::lock_guard<std::mutex> lock(HookMutex());
  Hook() = std::move(next);
}

void BackendLog(BackendLogLevel level, std::string_view source, std::string_view event, std::string_view message,
                std::initializer_list<BackendLogField> fields) {
  std::shared_ptr<const BackendLogHook> hook;
  {
    std::lock_guard<std::mutex> lock(HookMutex());
    hook = Hook();
  }
  if (hook) {
    (*hook)(level, source, event, message, std::span<const BackendLogField>(fields.begin(), fields.size()));
    return;
  }
  std::string line = "idem " + std::string(source) + " " + LevelName(level) + ": " + std::string(event) + ": " +
                     std::string(message);
  for (const BackendLogField& f : fields) line += " " + std::string(f.name) + "=" + std::string(f.value);
  line += "\n";
  std::fputs(line.c_str(), stderr);
}

}  // namespace idem
