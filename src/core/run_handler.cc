#include "core/run_handler.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <typeinfo>

namespace idem {
namespace {

std::string TypeName(const std::type_info* type) {
  if (!type) return "unknown type";
  int rc = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(type->name(), nullptr, nullptr, &rc), std::free);
  return rc == 0 && name ? std::string(name.get()) : std::string(type->name());
}

// The transaction as the handler sees it, noting the first deadlock or
// serialization failure any of its statements met. Handlers turn statuses into
// results by hand (usually "retryable"), so the pipeline cannot rely on the
// result to learn that the transaction, not the message, was at fault.
class ConflictWatch final : public SqlTx {
 public:
  explicit ConflictWatch(SqlTx& inner) : inner_(inner) {}

  Result<int64_t> Exec(std::string_view sql, const std::vector<Value>& params) override {
    return Note(inner_.Exec(sql, params));
  }
  Result<Rows> Query(std::string_view sql, const std::vector<Value>& params) override {
    return Note(inner_.Query(sql, params));
  }
  Status Savepoint(std::string_view name) override { return Note(inner_.Savepoint(name)); }
  Status RollbackTo(std::string_view name) override { return Note(inner_.RollbackTo(name)); }
  Status Release(std::string_view name) override { return Note(inner_.Release(name)); }
  const SqlDialect& Dialect() const override { return inner_.Dialect(); }

  const Status& conflict() const { return conflict_; }

 private:
  template <typename R>
  R Note(R r) {
    if (conflict_.ok() && r.status().IsTransactionConflict()) conflict_ = r.status();
    return r;
  }
  Status Note(Status s) {
    if (conflict_.ok() && s.IsTransactionConflict()) conflict_ = s;
    return s;
  }

  SqlTx& inner_;
  Status conflict_;
};

}  // namespace

std::string DescribeCurrentException() {
  const std::string type = TypeName(abi::__cxa_current_exception_type());
  try {
    throw;
  } catch (const std::exception& e) {
    const std::string what = e.what();
    return what.empty() || what == type ? type : type + ": " + what;
  } catch (...) {
    return "a non-standard exception of type " + type;
  }
}

HandlerResult InvokeHandler(const HandlerSpec& spec, HandlerContext& ctx) {
  try {
    return spec.fn(ctx);
  } catch (const PermanentError& e) {
    return HandlerResult::Permanent(e.what());
  } catch (const RetryableError& e) {
    return HandlerResult::Retryable(e.what());
  } catch (...) {
    // Unknown failures may be glitches: retry them, bounded by max_attempts.
    return HandlerResult::Retryable("handler threw " + DescribeCurrentException());
  }
}

Status RunUnderSavepoint(BatchItem& item, SqlTx& tx, Env& env, const RetryPolicy& policy, HandlerResult* result) {
  constexpr std::string_view kSavepoint = "idem_msg";
  IDEM_RETURN_IF_ERROR(tx.Savepoint(kSavepoint));
  item.ran = true;
  ConflictWatch watched(tx);
  HandlerContext ctx{*item.msg, item.key, watched, env, item.payload, item.attempt};
  int64_t backoff_ms = policy.in_process_backoff_ms;
  for (int t = 1;; ++t) {
    HandlerResult r = InvokeHandler(*item.spec, ctx);
    // Whatever the handler made of it, the whole transaction must run again:
    // locks taken before this savepoint are part of the deadlock.
    if (!watched.conflict().ok()) return watched.conflict();
    if (r.outcome == HandlerResult::Outcome::kOk) {
      item.summary = r.summary;
      *result = std::move(r);
      return tx.Release(kSavepoint);
    }
    // Undo everything the handler wrote, including effects done before a throw.
    IDEM_RETURN_IF_ERROR(tx.RollbackTo(kSavepoint));
    if (r.outcome == HandlerResult::Outcome::kRetryable && t < policy.in_process_tries) {
      env.SleepMs(backoff_ms);
      backoff_ms *= 2;
      continue;
    }
    IDEM_RETURN_IF_ERROR(tx.Release(kSavepoint));
    if (r.reason.empty()) r.reason = "handler failed without a reason";
    *result = std::move(r);
    return Status::OK();
  }
}

Status RunSetUnderSavepoint(const std::vector<BatchItem*>& items, SqlTx& tx, Env& env,
                            std::vector<HandlerResult>* results, bool* applied) {
  constexpr std::string_view kSavepoint = "idem_set";
  *applied = false;
  IDEM_RETURN_IF_ERROR(tx.Savepoint(kSavepoint));
  ConflictWatch watched(tx);
  std::vector<HandlerContext> contexts;
  contexts.reserve(items.size());
  for (BatchItem* it : items)
    contexts.push_back(HandlerContext{*it->msg, it->key, watched, env, it->payload, it->attempt});
  std::vector<HandlerContext*> pointers;
  for (HandlerContext& c : contexts) pointers.push_back(&c);
  std::vector<HandlerResult> out;
  const std::string thrown =
      ThrownBy([&] { out = items.front()->spec->batch_fn(std::span<HandlerContext* const>(pointers)); });
  if (!watched.conflict().ok()) return watched.conflict();
  bool all_ok = thrown.empty() && out.size() == items.size();
  for (size_t i = 0; all_ok && i < out.size(); ++i) all_ok = out[i].outcome == HandlerResult::Outcome::kOk;
  if (!all_ok) {
    // Whatever it wrote goes; each message gets its own run next.
    IDEM_RETURN_IF_ERROR(tx.RollbackTo(kSavepoint));
    return tx.Release(kSavepoint);
  }
  for (size_t i = 0; i < items.size(); ++i) {
    items[i]->ran = true;
    items[i]->summary = out[i].summary;
  }
  *results = std::move(out);
  *applied = true;
  return tx.Release(kSavepoint);
}

}  // namespace idem
