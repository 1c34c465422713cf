// PostgreSQL crash-restarted while consumers run (the pipeline restart
// conformance test). The server is the shared one from
// scripts/servers/postgres.sh, so this executable runs alone (RUN_SERIAL).
#include "postgres/pg_pipeline_store.h"

namespace idem::testing {

INSTANTIATE_TEST_SUITE_P(Postgres, PipelineRestartConformance, ::testing::Values(PostgresPipelineStore()),
                         [](const auto& info) { return info.param.name; });

}  // namespace idem::testing
