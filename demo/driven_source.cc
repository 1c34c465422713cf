#include "demo/driven_source.h"

namespace idem::demo {

Result<std::vector<Message>> DrivenSource::Poll(size_t max_messages, int64_t max_wait_ms) {
  auto got = inner().Poll(max_messages, max_wait_ms);
  if (!got.ok()) return got;
  std::vector<Message>& msgs = *got;
  lose_settlements_ = false;
  std::vector<std::string> ids;
  for (const Message& m : msgs) {
    log_->Record(consumer_, m);
    ids.push_back(m.id);
  }
  // A stall between receiving and processing (a long GC pause, a slow call
  // before the transaction): the leases run out, another consumer takes the
  // batch, and this one then processes its stale copies.
  bool stalled = false;
  for (const Message& m : msgs) stalled |= faults_->StallPastVisibility(m);
  if (stalled && faults_->on_stall) faults_->on_stall(consumer_, ids);
  // A rebalance after message r: r and everything before it are processed and
  // committed, the rest of the fetched batch is never processed here, and no
  // ack arrives for any of it.
  for (size_t r = 0; r < msgs.size(); ++r) {
    if (!faults_->RevokeAfter(msgs[r])) continue;
    msgs.resize(r + 1);
    lose_settlements_ = true;
    faults_->PostHandOver(ids);
    break;
  }
  for (const Message& m : msgs) lose_settlements_ |= faults_->CrashAfterCommit(m);
  return got;
}

Status DrivenSource::Settle(const std::vector<Settlement>& settlements) {
  if (lose_settlements_) return Status::OK();  // nobody is left to hear an error
  IDEM_RETURN_IF_ERROR(inner().Settle(settlements));
  for (const Settlement& s : settlements)
    if (s.kind == Settlement::Kind::kRetry) log_->NoteRetry(s.message->id);
  return Status::OK();
}

}  // namespace idem::demo
