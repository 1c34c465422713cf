// The MySQL/MariaDB store's entry in idem::connect's store table (see
// connect/backend_openers.h): mysql:// and mariadb:// URLs.
#include "connect/backend_openers.h"
#include "idem/mysql_store.h"

namespace {

idem::Result<std::unique_ptr<idem::Store>> OpenMysqlUrl(const std::string& url, idem::Env* env,
                                                        idem::StoreAccess access) {
  idem::MysqlStoreOptions options;
  options.create_if_missing = access == idem::StoreAccess::kCreate;
  return idem::OpenMysqlStore(url, options, env);
}

}  // namespace

extern "C" const idem::connect::StoreOpener idem_open_mysql_store = &OpenMysqlUrl;
