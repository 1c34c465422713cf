// The MySQL/MariaDB store's entry in idem::connect's store table (see
// connect/backend_openers.h): mysql:// and mariadb:// URLs.
#include "connect/backend_openers.h"
#include "idem/mysql_store.h"

extern "C" const idem::connect::StoreOpener idem_open_mysql_store =
    &idem::connect::OpenServerStoreUrl<idem::MysqlStoreOptions, &idem::OpenMysqlStore>;
