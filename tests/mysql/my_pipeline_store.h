// The MariaDB test server as the pipeline conformance suite's store
// (conformance/pipeline_conformance.h), with its hooks.
#pragma once

#include "conformance/pipeline_conformance.h"

namespace idem::testing {

PipelineStore MysqlPipelineStore();

}  // namespace idem::testing
