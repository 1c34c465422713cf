#include "service/abandoning_source.h"

namespace idem::service {

Result<std::vector<Message>> AbandoningSource::Poll(size_t max_messages, int64_t max_wait_ms) {
  if (control_->abandon.load()) return std::vector<Message>{};
  auto polled = inner().Poll(max_messages, max_wait_ms);
  if (clock_ && polled.ok() && !polled->empty() && clock_->load() == 0) clock_->store(env_->NowMs());
  return polled;
}

Status AbandoningSource::Settle(const std::vector<Settlement>& settlements) {
  if (!control_->abandon.load()) return inner().Settle(settlements);
  abandoned_ += settlements.size();
  return inner().Abandon();
}

}  // namespace idem::service
