#include "core/run_handler.h"

#include <cxxabi.h>

#include <cstdlib>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <typeinfo>
#include <vector>

namespace idem {
namespace {

std::string TypeName(const std::type_info* type) {
  if (!type) return "unknown type";
  int rc = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(type->name(), nullptr, nullptr, &rc), std::free);
  return rc == 0 && name ? std::string(name.get()) : std::string(type->name());
}

// The transaction as the handler sees it, noting the first deadlock or
// serialization failure any of its statements met, and whether any statement
// failed at all. Handlers turn statuses into results by hand (usually
// "retryable"), so the pipeline cannot rely on the result to learn that the
// transaction, not the message, was at fault — nor, without a savepoint, that
// a statement the handler shrugged off left the transaction needing one
// (PostgreSQL aborts the whole transaction on any error).
class ConflictWatch final : public SqlTx {
 public:
  explicit ConflictWatch(SqlTx& inner) : inner_(inner) {}

  Result<int64_t> Exec(std::string_view sql, const std::vector<Value>& params) override {
    return Note(inner_.Exec(sql, params));
  }
  Result<Rows> Query(std::string_view sql, const std::vector<Value>& params) override {
    return Note(inner_.Query(sql, params));
  }
  // A handler's own savepoints: rolling back to one undoes the statement
  // failures met since it was opened (a handler that expects an error catches
  // it so), so they no longer count.
  Status Savepoint(std::string_view name) override {
    Status s = Note(inner_.Savepoint(name));
    if (s.ok()) savepoints_.push_back({std::string(name), any_failed_});
    return s;
  }
  Status RollbackTo(std::string_view name) override {
    Status s = Note(inner_.RollbackTo(name));
    const auto open = Find(name);
    if (s.ok() && open != savepoints_.end()) {
      any_failed_ = open->failed_before;
      savepoints_.erase(open + 1, savepoints_.end());  // the later ones are gone
    }
    return s;
  }
  Status Release(std::string_view name) override {
    Status s = Note(inner_.Release(name));
    const auto open = Find(name);
    if (s.ok() && open != savepoints_.end()) savepoints_.erase(open, savepoints_.end());
    return s;
  }
  const SqlDialect& Dialect() const override { return inner_.Dialect(); }

  const Status& conflict() const { return conflict_; }
  bool any_failed() const { return any_failed_; }

 private:
  template <typename R>
  R Note(R r) {
    Note(r.status());
    return r;
  }
  Status Note(Status s) {
    if (conflict_.ok() && s.IsTransactionConflict()) conflict_ = s;
    any_failed_ = any_failed_ || !s.ok();
    return s;
  }

  struct Open {
    std::string name;
    bool failed_before;
  };
  // The innermost open savepoint of that name (a name may be reused, as in SQL).
  std::vector<Open>::iterator Find(std::string_view name) {
    for (auto it = savepoints_.rbegin(); it != savepoints_.rend(); ++it)
      if (it->name == name) return std::prev(it.base());
    return savepoints_.end();
  }

  SqlTx& inner_;
  Status conflict_;
  bool any_failed_ = false;
  std::vector<Open> savepoints_;
};

// The contexts of a set-based run, one per item, over one watched transaction.
std::vector<HandlerContext> ContextsOf(const std::vector<BatchItem*>& items, SqlTx& watched, Env& env) {
  std::vector<HandlerContext> contexts;
  contexts.reserve(items.size());
  for (BatchItem* it : items)
    contexts.push_back(HandlerContext{*it->msg, it->key, watched, env, it->payload, it->attempt});
  return contexts;
}

// Runs the set-based handler of `items` over `contexts`; true when every
// result is Ok (and `*out` holds one per item).
bool RunSet(const std::vector<BatchItem*>& items, std::vector<HandlerContext>& contexts,
            std::vector<HandlerResult>* out) {
  std::vector<HandlerContext*> pointers;
  for (HandlerContext& c : contexts) pointers.push_back(&c);
  const std::string thrown =
      ThrownBy([&] { *out = items.front()->spec->batch_fn(std::span<HandlerContext* const>(pointers)); });
  bool all_ok = thrown.empty() && out->size() == items.size();
  for (size_t i = 0; all_ok && i < out->size(); ++i) all_ok = (*out)[i].outcome == HandlerResult::Outcome::kOk;
  return all_ok;
}

void NoteApplied(const std::vector<BatchItem*>& items, const std::vector<HandlerResult>& results) {
  for (size_t i = 0; i < items.size(); ++i) {
    items[i]->ran = true;
    items[i]->summary = results[i].summary;
  }
}

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

Status RunUnderSavepoint(BatchItem& item, SqlTx& tx, Env& env, const RetryPolicy& policy,
                         const HandlerResult* first_try, HandlerResult* result) {
  constexpr std::string_view kSavepoint = "idem_msg";
  IDEM_RETURN_IF_ERROR(tx.Savepoint(kSavepoint));
  item.ran = true;
  ConflictWatch watched(tx);
  HandlerContext ctx{*item.msg, item.key, watched, env, item.payload, item.attempt};
  int64_t backoff_ms = policy.in_process_backoff_ms;
  for (int t = 1;; ++t) {
    HandlerResult r = t == 1 && first_try ? *first_try : InvokeHandler(*item.spec, ctx);
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
  std::vector<HandlerContext> contexts = ContextsOf(items, watched, env);
  std::vector<HandlerResult> out;
  const bool all_ok = RunSet(items, contexts, &out);
  if (!watched.conflict().ok()) return watched.conflict();
  if (!all_ok) {
    // Whatever it wrote goes; each message gets its own run next.
    IDEM_RETURN_IF_ERROR(tx.RollbackTo(kSavepoint));
    return tx.Release(kSavepoint);
  }
  NoteApplied(items, out);
  *results = std::move(out);
  *applied = true;
  return tx.Release(kSavepoint);
}

Status RunWithoutSavepoint(BatchItem& item, SqlTx& tx, Env& env, HandlerResult* result, bool* succeeded,
                           bool* statement_failed) {
  *succeeded = false;
  item.ran = true;
  ConflictWatch watched(tx);
  HandlerContext ctx{*item.msg, item.key, watched, env, item.payload, item.attempt};
  *result = InvokeHandler(*item.spec, ctx);
  if (!watched.conflict().ok()) return watched.conflict();
  *statement_failed = watched.any_failed();
  *succeeded = result->outcome == HandlerResult::Outcome::kOk && !*statement_failed;
  if (*succeeded) item.summary = result->summary;
  return Status::OK();
}

Status RunSetWithoutSavepoint(const std::vector<BatchItem*>& items, SqlTx& tx, Env& env,
                              std::vector<HandlerResult>* results, bool* succeeded) {
  *succeeded = false;
  ConflictWatch watched(tx);
  std::vector<HandlerContext> contexts = ContextsOf(items, watched, env);
  std::vector<HandlerResult> out;
  const bool all_ok = RunSet(items, contexts, &out);
  if (!watched.conflict().ok()) return watched.conflict();
  if (!all_ok || watched.any_failed()) return Status::OK();
  NoteApplied(items, out);
  *results = std::move(out);
  *succeeded = true;
  return Status::OK();
}

}  // namespace idem
