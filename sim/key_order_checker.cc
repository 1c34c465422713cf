#include "sim/key_order_checker.h"

#include <map>

namespace idem::sim {
namespace {

constexpr char kChecker[] = "key_order";
constexpr size_t kUndecided = static_cast<size_t>(-1);

bool Decides(DecisionKind k) {
  return k == DecisionKind::kFirst || k == DecisionKind::kDuplicate || k == DecisionKind::kParked ||
         k == DecisionKind::kConflict;
}

}  // namespace

void CheckKeyOrder(const std::vector<Event>& events, const std::vector<SeenDecision>& decisions, CheckReport& report) {
  report.Ran(kChecker);
  std::map<std::string, size_t> event_of_id;
  std::map<std::string, std::vector<size_t>> events_of_key;  // publishing order
  for (size_t i = 0; i < events.size(); ++i) {
    event_of_id.emplace(events[i].msg.id, i);
    if (!events[i].msg.key.empty()) events_of_key[events[i].msg.key].push_back(i);
  }
  auto event_of = [&](std::string id) -> size_t {
    static constexpr std::string_view kResend = "-resend";
    if (id.size() > kResend.size() && id.compare(id.size() - kResend.size(), kResend.size(), kResend) == 0)
      id.resize(id.size() - kResend.size());
    auto it = event_of_id.find(id);
    return it == event_of_id.end() ? kUndecided : it->second;
  };
  std::vector<size_t> decided_at(events.size(), kUndecided);
  for (size_t seq = 0; seq < decisions.size(); ++seq) {
    const size_t e = event_of(decisions[seq].message_id);
    if (e == kUndecided) continue;
    const std::string& key = events[e].msg.key;
    if (decisions[seq].kind == DecisionKind::kFirst && !key.empty()) {
      for (size_t earlier : events_of_key[key]) {
        if (earlier >= e) break;
        if (decided_at[earlier] == kUndecided)
          report.Fail(kChecker, "event " + events[e].msg.id + " (key " + key + ") was applied while the earlier " +
                                    events[earlier].msg.id + " of its key was undecided");
      }
    }
    if (Decides(decisions[seq].kind) && decided_at[e] == kUndecided) decided_at[e] = seq;
  }
}

}  // namespace idem::sim
