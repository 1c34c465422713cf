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
  if (path.empty()) return Status::InvalidArgument("store URL '" + url + "' names no file");
  return OpenSqliteStore(path, SqliteStoreOptions{}, env);
}

}  // namespace idem
