#include "ops/sweeper.h"

namespace idem::ops {

Result<Sweeper> Sweeper::Create(Store* store, SweepOptions options, int64_t min_window_ms) {
  if (options.batch_rows <= 0 || options.interval_ms < 0 || options.window_ms <= 0)
    return Status::InvalidArgument("retention: window, interval and batch rows must be positive");
  if (options.window_ms < min_window_ms)
    return Status::InvalidArgument(
        "retention window of " + std::to_string(options.window_ms) + " ms is shorter than the longest redelivery window (" +
        std::to_string(min_window_ms) +
        " ms: every retry delay + the lease + the fast filter's TTL): a late copy could find its record gone and "
        "apply its effects again; keep records at least that long");
  return Sweeper(store, options);
}

SweepStep Sweeper::RunIfDue(int64_t now_ms) {
  SweepStep step;
  if (now_ms < next_due_ms_) return step;
  step.ran = true;
  if (pass_cutoff_ms_ < 0) {
    pass_cutoff_ms_ = now_ms - options_.window_ms;
    pass_deleted_ = 0;
  }
  step.cutoff_ms = pass_cutoff_ms_;
  auto deleted = store_->SweepRecords(pass_cutoff_ms_, options_.batch_rows);
  if (deleted.ok()) {
    step.deleted = *deleted;
    pass_deleted_ += *deleted;
  } else {
    step.status = deleted.status();
  }
  // A full batch means more may be waiting: the next call goes on at once.
  if (deleted.ok() && *deleted >= options_.batch_rows) return step;
  step.pass_done = true;
  step.pass_deleted = pass_deleted_;
  pass_cutoff_ms_ = -1;
  next_due_ms_ = now_ms + options_.interval_ms;
  return step;
}

}  // namespace idem::ops
