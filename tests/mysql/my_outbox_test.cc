// The outbox relay on MariaDB: the outbox conformance suite (a connection
// gives up on a row lock after innodb_lock_wait_timeout). The cleanup takes
// MySQL's own DELETE … LIMIT.
#include "conformance/outbox_conformance.h"
#include "mysql/my_test_support.h"

namespace idem::testing {
namespace {

StoreFactory MysqlOutboxFactory() {
  return StoreFactory{"mariadb",
                      &FreshDatabaseUrlOrSkip,
                      [](const std::string& url, Env*) { return OpenMyStoreOrFail(url); }};
}

INSTANTIATE_TEST_SUITE_P(Mariadb, OutboxConformance, ::testing::Values(MysqlOutboxFactory()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace idem::testing
