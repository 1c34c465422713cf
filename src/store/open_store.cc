// OpenStore: picks the backend from the URL scheme.
#include "idem/store.h"
#include "store/store_url.h"

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

Result<StoreUrl> ParseStoreUrl(const std::string& url) {
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0) {
#ifdef IDEM_WITH_POSTGRES
    StoreUrl parsed;
    parsed.kind = StoreUrl::Kind::kPostgres;
    return parsed;
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
  StoreUrl parsed;
  parsed.path = std::move(path);
  parsed.sqlite = options;
  return parsed;
}

Result<std::unique_ptr<Store>> OpenStore(const std::string& url, Env* env) {
  auto parsed = ParseStoreUrl(url);
  if (!parsed.ok()) return parsed.status();
#ifdef IDEM_WITH_POSTGRES
  if (parsed->kind == StoreUrl::Kind::kPostgres) return OpenPostgresStore(url, PostgresStoreOptions{}, env);
#endif
  return OpenSqliteStore(parsed->path, parsed->sqlite, env);
}

}  // namespace idem
