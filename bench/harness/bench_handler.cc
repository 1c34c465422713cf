#include "harness/bench_handler.h"

#include "harness/pay_stream.h"
#include "payments/handlers.h"

namespace idem::bench {

HandlerSpec BenchPayHandler(payments::Downstream* downstream, bool skip_marked_copies, HandlerTally* tally) {
  payments::ServiceOptions service;
  service.downstream = downstream;
  HandlerSpec spec = payments::PaySuccessHandler(service);
  HandlerFn business = std::move(spec.fn);
  spec.fn = [business = std::move(business), skip_marked_copies, tally](HandlerContext& ctx) -> HandlerResult {
    if (skip_marked_copies && ctx.message.headers.count(kCopyHeader)) {
      tally->oracle_skips++;
      return HandlerResult::Ok("copy skipped by the bench oracle");
    }
    tally->business_runs++;
    return business(ctx);
  };
  if (!spec.batch_fn) return spec;
  // The set-based form counts as one run per payment it applied (when it
  // falls back, `fn` counts them); the ceiling's copies are skipped here too.
  spec.batch_fn = [set = std::move(spec.batch_fn), skip_marked_copies, tally](std::span<HandlerContext* const> all) {
    std::vector<HandlerContext*> runs;
    for (HandlerContext* ctx : all)
      if (!skip_marked_copies || !ctx->message.headers.count(kCopyHeader)) runs.push_back(ctx);
    std::vector<HandlerResult> ran = runs.empty() ? std::vector<HandlerResult>{} : set(runs);
    if (ran.size() != runs.size()) return ran;
    for (const HandlerResult& r : ran)
      if (r.outcome != HandlerResult::Outcome::kOk) return ran;
    tally->business_runs += static_cast<int64_t>(runs.size());
    tally->oracle_skips += static_cast<int64_t>(all.size() - runs.size());
    std::vector<HandlerResult> out;
    for (size_t i = 0, next = 0; i < all.size(); ++i)
      out.push_back(next < runs.size() && all[i] == runs[next] ? ran[next++]
                                                               : HandlerResult::Ok("copy skipped by the bench oracle"));
    return out;
  };
  return spec;
}

}  // namespace idem::bench
