#include "core/run_handler.h"

namespace idem {

HandlerResult InvokeHandler(const HandlerSpec& spec, HandlerContext& ctx) {
  try {
    return spec.fn(ctx);
  } catch (const PermanentError& e) {
    return HandlerResult::Permanent(e.what());
  } catch (const RetryableError& e) {
    return HandlerResult::Retryable(e.what());
  } catch (const std::exception& e) {
    // Unknown failures may be glitches: retry them, bounded by max_attempts.
    return HandlerResult::Retryable(std::string("handler threw: ") + e.what());
  } catch (...) {
    return HandlerResult::Retryable("handler threw a non-standard exception");
  }
}

Status RunUnderSavepoint(BatchItem& item, SqlTx& tx, Env& env, const RetryPolicy& policy) {
  constexpr std::string_view kSavepoint = "idem_msg";
  IDEM_RETURN_IF_ERROR(tx.Savepoint(kSavepoint));
  item.ran = true;
  HandlerContext ctx{*item.msg, item.key, tx, env, item.payload};
  int64_t backoff_ms = policy.in_process_backoff_ms;
  for (int t = 1;; ++t) {
    HandlerResult r = InvokeHandler(*item.spec, ctx);
    if (r.outcome == HandlerResult::Outcome::kOk) {
      item.summary = std::move(r.summary);
      return tx.Release(kSavepoint);
    }
    // Undo everything the handler wrote, including effects done before a throw (SPEC R-A4).
    IDEM_RETURN_IF_ERROR(tx.RollbackTo(kSavepoint));
    if (r.outcome == HandlerResult::Outcome::kRetryable && t < policy.in_process_tries) {
      env.SleepMs(backoff_ms);
      backoff_ms *= 2;
      continue;
    }
    IDEM_RETURN_IF_ERROR(tx.Release(kSavepoint));
    if (r.reason.empty()) r.reason = "handler failed without a reason";
    if (r.outcome == HandlerResult::Outcome::kPermanent) item.Park(std::move(r.reason));
    else item.Retry(std::move(r.reason));
    return Status::OK();
  }
}

}  // namespace idem
