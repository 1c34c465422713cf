// What a store URL names, read before anything is opened (OpenStore's first
// step; the fuzz tests run it on arbitrary text).
#pragma once

#include <string>

#include "idem/status.h"
#include "idem/store.h"

namespace idem {

struct StoreUrl {
  enum class Kind { kSqlite, kPostgres, kMySql };
  Kind kind = Kind::kSqlite;
  const SqlDialect* dialect = nullptr;  // the store's SQL (never null after ParseStoreUrl)
  std::string path;           // kSqlite: the database file, never empty
  SqliteStoreOptions sqlite;  // kSqlite: from ?synchronous=
};

// postgresql:// and postgres:// are kPostgres (libpq reads the rest), mysql://
// and mariadb:// kMySql (the store reads the rest); sqlite:PATH,
// sqlite://PATH and a bare path (no ':' before its first '/') are kSqlite. Any other
// scheme ("sqlit:x.db" included: never a file of that name), a missing path or
// an unknown option is an InvalidArgument that says what to write instead.
Result<StoreUrl> ParseStoreUrl(const std::string& url);

}  // namespace idem
