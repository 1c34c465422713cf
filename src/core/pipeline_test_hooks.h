// PipelineTestHooks: what the demo and the simulator may do to a Pipeline that
// no user may. Internal (src/ is not installed); not part of the API.
#pragma once

#include "idem/pipeline.h"

namespace idem {

class PipelineTestHooks {
 public:
  // Turns the guard off: no consumption records, no dedup, every delivery runs
  // its handler (and a message's attempt is the broker's count). It exists to
  // show the damage the guard prevents, with everything else the same.
  // REQUIRES: before the pipeline's first RunOnce.
  static void TurnGuardOff(Pipeline& pipeline);
};

}  // namespace idem
