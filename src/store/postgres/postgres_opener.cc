// The PostgreSQL store's entry in idem::connect's store table (see
// connect/backend_openers.h): postgresql:// and postgres:// URLs.
#include "connect/backend_openers.h"
#include "idem/postgres_store.h"

extern "C" const idem::connect::StoreOpener idem_open_postgres_store =
    &idem::connect::OpenServerStoreUrl<idem::PostgresStoreOptions, &idem::OpenPostgresStore>;
