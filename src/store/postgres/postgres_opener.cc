// The PostgreSQL store's entry in idem::connect's store table (see
// connect/backend_openers.h): postgresql:// and postgres:// URLs.
#include "connect/backend_openers.h"
#include "idem/postgres_store.h"

namespace {

idem::Result<std::unique_ptr<idem::Store>> OpenPostgresUrl(const std::string& url, idem::Env* env,
                                                           idem::StoreAccess access) {
  idem::PostgresStoreOptions options;
  options.create_if_missing = access == idem::StoreAccess::kCreate;
  return idem::OpenPostgresStore(url, options, env);
}

}  // namespace

extern "C" const idem::connect::StoreOpener idem_open_postgres_store = &OpenPostgresUrl;
