// The per-key order checker, for runs whose broker keeps each key's order under
// retries (Kafka with ordered retries): no event is applied while an earlier
// event of its key is still undecided — not applied, not a duplicate, not
// dead-lettered. A refund that overtook its order's payment fails it. Written
// once, generic over the workload: it reads only the events' keys and ids and
// the pipeline's decisions, never a reason text.
#pragma once

#include <string>
#include <vector>

#include "idem/decision.h"
#include "sim/workload.h"

namespace idem::sim {

// One pipeline decision, in the order they were made.
struct SeenDecision {
  std::string message_id;
  DecisionKind kind;
};

// `events` in publishing order; Message::key is the ordering key (events
// without one promise no order). A producer's resend ("ID-resend") counts as
// its event. Violations go to "key_order".
void CheckKeyOrder(const std::vector<Event>& events, const std::vector<SeenDecision>& decisions, CheckReport& report);

}  // namespace idem::sim
