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
  return spec;
}

}  // namespace idem::bench
