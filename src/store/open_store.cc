// OpenStore: picks the backend from the URL scheme.
#include "idem/store.h"

namespace idem {

Result<std::unique_ptr<Store>> OpenStore(const std::string& url, Env* env) {
  std::string path = url;
  for (const char* prefix : {"sqlite://", "sqlite:"}) {
    if (url.rfind(prefix, 0) == 0) {
      path = url.substr(std::string(prefix).size());
      break;
    }
  }
  if (path.find("://") != std::string::npos)
    return Status::InvalidArgument("unsupported store URL '" + url +
                                   "': use sqlite:PATH (this build has no other store backends)");
  SqliteStoreOptions options;
  // "?synchronous=normal" trades the last transactions on power loss for speed;
  // the default (full) survives power loss.
  if (auto q = path.find('?'); q != std::string::npos) {
    const std::string query = path.substr(q + 1);
    path.resize(q);
    if (query == "synchronous=normal") options.durable_against_power_loss = false;
    else if (query != "synchronous=full")
      return Status::InvalidArgument("unknown store URL option '" + query +
                                     "': use synchronous=full (default) or synchronous=normal");
  }
  if (path.empty()) return Status::InvalidArgument("store URL '" + url + "' names no file");
  return OpenSqliteStore(path, options, env);
}

}  // namespace idem
