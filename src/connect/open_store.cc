// OpenStore and the store schemes.
#include "connect/backend_openers.h"
#include "connect/known_schemes.h"
#include "store/dialects.h"
#include "store/store_url.h"

#pragma weak idem_open_postgres_store
#pragma weak idem_open_mysql_store

namespace idem {
namespace connect {
namespace {

// "sqlite:PATH", "sqlite://PATH" or a bare PATH, optionally "?synchronous=normal|full".
Result<StoreUrl> ParseSqliteUrl(const std::string& url) {
  std::string path = url;
  for (const char* prefix : {"sqlite://", "sqlite:"}) {
    if (url.rfind(prefix, 0) == 0) {
      path = url.substr(std::string(prefix).size());
      break;
    }
  }
  if (path.find("://") != std::string::npos)
    return Status::InvalidArgument("store URL '" + RedactedUrl(url) +
                                   "' holds another URL where the SQLite file should be: write sqlite:PATH");
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
  if (path.empty()) return Status::InvalidArgument("store URL '" + RedactedUrl(url) + "' names no file");
  StoreUrl parsed;
  parsed.dialect = &SqliteDialect();
  parsed.path = std::move(path);
  parsed.sqlite = options;
  return parsed;
}

Result<std::unique_ptr<Store>> OpenSqliteUrl(const std::string& url, Env* env, StoreAccess access) {
  auto parsed = ParseSqliteUrl(url);
  if (!parsed.ok()) return parsed.status();
  return OpenSqliteStore(parsed->path, parsed->sqlite, access, env);
}

}  // namespace

const SchemeTable<StoreOpener>& StoreSchemes() {
  static const SchemeTable<StoreOpener> table{
      "store",
      {
          {{{"sqlite:"}, "sqlite:PATH", "the SQLite store", "", true}, &OpenSqliteUrl},
          {{{"postgresql://", "postgres://"}, "postgresql://USER@HOST:PORT/DB", "the PostgreSQL store",
            "IDEM_WITH_POSTGRES"},
           IDEM_LINKED_OPENER(idem_open_postgres_store)},
          {{{"mysql://", "mariadb://"}, "mysql://USER:PASSWORD@HOST:PORT/DB", "the MySQL/MariaDB store",
            "IDEM_WITH_MYSQL"},
           IDEM_LINKED_OPENER(idem_open_mysql_store)},
      }};
  return table;
}

Status CheckStoreUrl(const std::string& url) {
  if (Status s = CheckScheme(StoreSchemes(), url); !s.ok()) return s;
  auto open = FindOpener(StoreSchemes(), url);
  if (open.ok() && *open == &OpenSqliteUrl) return ParseSqliteUrl(url).status();
  return Status::OK();
}

}  // namespace connect

Result<StoreUrl> ParseStoreUrl(const std::string& url) {
  auto open = connect::FindOpener(connect::StoreSchemes(), url);
  if (!open.ok()) return open.status();
  if (*open == &connect::OpenSqliteUrl) return connect::ParseSqliteUrl(url);
  StoreUrl parsed;
  // libpq reads the rest of a PostgreSQL URL; the MySQL store parses its own.
  parsed.kind = *open == IDEM_LINKED_OPENER(idem_open_postgres_store) ? StoreUrl::Kind::kPostgres : StoreUrl::Kind::kMySql;
  parsed.dialect = parsed.kind == StoreUrl::Kind::kPostgres ? &PostgresDialect() : &MysqlDialect();
  return parsed;
}

Result<std::unique_ptr<Store>> OpenStore(const std::string& url, Env* env, StoreAccess access) {
  auto open = connect::FindOpener(connect::StoreSchemes(), url);
  if (!open.ok()) return open.status();
  return (*open)(url, env, access);
}

Result<std::unique_ptr<Store>> OpenStore(const std::string& url, Env* env) {
  return OpenStore(url, env, StoreAccess::kCreate);
}

}  // namespace idem
