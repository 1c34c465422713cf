// The guard pipeline on PostgreSQL: the pipeline conformance suite.
#include "postgres/pg_pipeline_store.h"

namespace idem::testing {

INSTANTIATE_TEST_SUITE_P(Postgres, PipelineConformance, ::testing::Values(PostgresPipelineStore()),
                         [](const auto& info) { return info.param.name; });

}  // namespace idem::testing
