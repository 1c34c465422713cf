#include "core/plan_item.h"

#include "core/key.h"
#include "core/run_handler.h"

namespace idem {
namespace {

void PlanOne(BatchItem& it, const HandlerTable& handlers, const PipelineOptions& opt) {
  using B = Outcome::By;
  const Message& m = *it.msg;
  if (m.payload.size() > opt.max_payload_bytes) {
    it.Decide(Outcome::Park(B::kPlan, "payload is " + std::to_string(m.payload.size()) +
                                          " bytes, over the limit of " + std::to_string(opt.max_payload_bytes) +
                                          " (max_payload_bytes)"));
    return;
  }
  auto h = handlers.find(m.topic);
  if (h == handlers.end()) {
    if (opt.park_unknown_topics)
      it.Decide(Outcome::Park(B::kPlan, "no handler is registered for topic '" + m.topic + "'"));
    else
      it.Decide(Outcome::Release(B::kPlan, "no handler for topic '" + m.topic + "'", opt.retry.DelayAfter(1)));
    return;
  }
  auto id = DeriveIdentity(m, h->second, JsonLimits{opt.max_json_depth, opt.max_payload_bytes});
  if (!id.ok()) {
    it.Decide(Outcome::Park(B::kPlan, id.status().message()));
    return;
  }
  it.key = std::move(id->key);
  it.fingerprint = std::move(id->fingerprint);
  it.payload = std::move(id->payload);
  it.spec = &h->second;  // planned to run
}

}  // namespace

void PlanItem(BatchItem& it, const HandlerTable& handlers, const PipelineOptions& opt) {
  if (std::string thrown = ThrownBy([&] { PlanOne(it, handlers, opt); }); !thrown.empty())
    it.Decide(Outcome::Park(Outcome::By::kPlan, "deriving the key and fingerprint threw " + thrown +
                                                    "; a message that cannot be keyed is never processed without "
                                                    "protection"));
}

}  // namespace idem
