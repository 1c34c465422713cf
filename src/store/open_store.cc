// OpenStore: picks the backend from the URL scheme.
#include "idem/store.h"

#ifdef IDEM_WITH_POSTGRES
#include "idem/postgres_store.h"
#endif

namespace idem {
namespace {

#ifdef IDEM_WITH_POSTGRES
constexpr const char* kKnownSchemes = "use sqlite:PATH or postgresql://USER@HOST:PORT/DB";
#else
constexpr const char* kKnownSchemes = "use sqlite:PATH (this build has no other store backends)";
#endif

}  // namespace

Result<std::unique_ptr<Store>> OpenStore(const std::string& url, Env* env) {
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0) {
#ifdef IDEM_WITH_POSTGRES
    return OpenPostgresStore(url, PostgresStoreOptions{}, env);
#else
    return Status::InvalidArgument("store URL '" + url +
                                   "' needs the PostgreSQL store, which this build leaves out: "
                                   "configure with -DIDEM_WITH_POSTGRES=ON");
#endif
  }
  std::string path = url;
  for (const char* prefix : {"sqlite://", "sqlite:"}) {
    if (url.rfind(prefix, 0) == 0) {
      path = url.substr(std::string(prefix).size());
      break;
    }
  }
  if (path.find("://") != std::string::npos)
    return Status::InvalidArgument("unsupported store URL '" + url +
                                   "': " + kKnownSchemes);
  if (path.empty()) return Status::InvalidArgument("store URL '" + url + "' names no file");
  return OpenSqliteStore(path, SqliteStoreOptions{}, env);
}

}  // namespace idem
