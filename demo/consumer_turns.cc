#include "demo/consumer_turns.h"

namespace idem::demo::detail {

ConsumerTurns::ConsumerTurns(const FaultPlan* plan) : faults_(plan) {
  faults_.on_stall = [this](size_t consumer, const std::vector<std::string>& ids) { HandOver(ids, consumer); };
}

Status ConsumerTurns::StepAll(bool* progressed, size_t skip) {
  for (size_t i = 0; i < consumers_.size(); ++i) {
    if (i == skip) continue;
    auto n = consumers_[i]->Step();
    if (!n.ok()) return n.status();
    IDEM_RETURN_IF_ERROR(handover_status_);
    *progressed |= *n > 0;
    if (std::vector<std::string> ids = faults_.TakeHandOver(); !ids.empty()) {
      HandOver(ids, i);
      IDEM_RETURN_IF_ERROR(handover_status_);
    }
    IDEM_RETURN_IF_ERROR(AfterStep(i));
  }
  return Status::OK();
}

void ConsumerTurns::HandOver(const std::vector<std::string>& ids, size_t from) {
  if (consumers_.size() < 2) {
    handover_status_ = Status::InvalidArgument("a hand-over needs a second consumer");
    return;
  }
  faults_.SetHandingOver(true);
  handover_status_ = HandOverUntil(ids, from);
  faults_.SetHandingOver(false);
}

}  // namespace idem::demo::detail
