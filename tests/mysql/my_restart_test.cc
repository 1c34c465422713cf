// MariaDB killed (SIGKILL) and started again while consumers run (the pipeline
// restart conformance test). The server is the shared one from
// scripts/servers/mariadb.sh, so this executable runs alone (RUN_SERIAL).
#include "mysql/my_pipeline_store.h"

namespace idem::testing {

INSTANTIATE_TEST_SUITE_P(Mariadb, PipelineRestartConformance, ::testing::Values(MysqlPipelineStore()),
                         [](const auto& info) { return info.param.name; });

}  // namespace idem::testing
