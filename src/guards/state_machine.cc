// The order of business states as a guard. A conditional UPDATE moves the
// row only from a legal predecessor; when it moves nothing, the state read back
// says whether the event is a duplicate, late, early or illegal — so a late
// "PAID" after "SHIPPED" is acknowledged without moving the order backwards.
#include "guards/sql_identifier.h"
#include "idem/guards.h"

namespace idem {

const char* TransitionOutcomeName(TransitionResult::Outcome o) {
  switch (o) {
    case TransitionResult::Outcome::kApplied: return "applied";
    case TransitionResult::Outcome::kAlreadyInTarget: return "already";
    case TransitionResult::Outcome::kStale: return "stale";
    case TransitionResult::Outcome::kTooEarly: return "too early";
    case TransitionResult::Outcome::kIllegal: return "illegal";
    case TransitionResult::Outcome::kNotFound: return "not found";
  }
  return "?";
}

std::string TransitionResult::Describe(std::string_view target) const {
  const std::string t(target);
  switch (outcome) {
    case Outcome::kApplied: return "applied: moved to " + t;
    case Outcome::kAlreadyInTarget: return "already: state is " + t + " already";
    case Outcome::kStale: return "stale: state " + current + " is already past " + t;
    case Outcome::kTooEarly: return "too early: state " + current + " has not reached a predecessor of " + t;
    case Outcome::kIllegal: return "illegal: " + current + " cannot become " + t;
    case Outcome::kNotFound: return "not found: no row to move to " + t;
  }
  return "?";
}

Result<StateMachine> StateMachine::Create(StateMachineSpec spec) {
  IDEM_RETURN_IF_ERROR(guards::CheckIdentifiers({spec.table, spec.key_column, spec.state_column}));
  if (!spec.version_column.empty()) IDEM_RETURN_IF_ERROR(guards::CheckIdentifiers({spec.version_column}));
  if (spec.transitions.empty()) return Status::InvalidArgument("a state machine needs at least one transition");
  StateMachine sm(std::move(spec));
  std::map<std::string, std::set<std::string>, std::less<>> next;
  for (const StateTransition& t : sm.spec_.transitions) {
    if (t.from.empty() || t.to.empty() || t.from == t.to)
      return Status::InvalidArgument("transition '" + t.from + "' -> '" + t.to + "' must join two different states");
    next[t.from].insert(t.to);
    next.try_emplace(t.to);
    sm.predecessors_[t.to].insert(t.from);
  }
  // Transitive closure by depth-first search from every state; a state that can
  // reach itself is a cycle, which would make "already past" meaningless.
  for (const auto& [state, unused] : next) {
    std::set<std::string>& seen = sm.reachable_[state];
    std::vector<std::string> stack(next[state].begin(), next[state].end());
    while (!stack.empty()) {
      std::string s = std::move(stack.back());
      stack.pop_back();
      if (!seen.insert(s).second) continue;
      for (const std::string& n : next[s]) stack.push_back(n);
    }
    if (seen.count(state))
      return Status::InvalidArgument("the transitions form a cycle through '" + state +
                                     "'; a state machine guard needs states that never come back");
  }
  return sm;
}

bool StateMachine::IsLegal(std::string_view from, std::string_view to) const {
  auto it = predecessors_.find(to);
  return it != predecessors_.end() && it->second.count(std::string(from)) > 0;
}

bool StateMachine::Reaches(std::string_view from, std::string_view to) const {
  auto it = reachable_.find(from);
  return it != reachable_.end() && it->second.count(std::string(to)) > 0;
}

TransitionResult::Outcome StateMachine::Classify(std::string_view current, std::string_view target) const {
  using O = TransitionResult::Outcome;
  if (current == target) return O::kAlreadyInTarget;
  if (IsLegal(current, target)) return O::kApplied;
  if (Reaches(target, current)) return O::kStale;
  if (Reaches(current, target)) return O::kTooEarly;
  return O::kIllegal;
}

Result<TransitionResult> StateMachine::Move(SqlTx& tx, const Value& key, std::string_view target,
                                            const std::vector<Column>& also_set) const {
  auto preds = predecessors_.find(target);
  if (preds == predecessors_.end())
    return Status::InvalidArgument("no declared transition leads to state '" + std::string(target) + "'");
  const StateMachineSpec& s = spec_;
  std::string sql = "UPDATE " + s.table + " SET " + s.state_column + " = ?";
  std::vector<Value> params{std::string(target)};
  if (!s.version_column.empty()) sql += ", " + s.version_column + " = " + s.version_column + " + 1";
  for (const Column& c : also_set) {
    IDEM_RETURN_IF_ERROR(guards::CheckIdentifiers({c.name}));
    if (c.name == s.state_column || c.name == s.key_column || c.name == s.version_column)
      return Status::InvalidArgument("Move must not set the state, key or version column '" + c.name + "'");
    sql += ", " + c.name + " = ?";
    params.push_back(c.value);
  }
  sql += " WHERE " + s.key_column + " = ? AND " + s.state_column + " IN (" +
         guards::ParameterMarkers(preds->second.size()) + ")";
  params.push_back(key);
  for (const std::string& p : preds->second) params.emplace_back(p);
  auto n = tx.Exec(sql, params);
  if (!n.ok()) return n.status();
  if (*n == 1) return TransitionResult{TransitionResult::Outcome::kApplied, std::string(target)};
  if (*n > 1) return Status::InvalidArgument(s.key_column + " does not identify one row of " + s.table);

  auto rows = tx.Query("SELECT " + s.state_column + " FROM " + s.table + " WHERE " + s.key_column + " = ?", {key});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return TransitionResult{TransitionResult::Outcome::kNotFound, {}};
  std::string current = AsText((*rows)[0][0]);
  TransitionResult::Outcome o = Classify(current, target);
  // The UPDATE saw a state that was not a predecessor; if the row is in one now,
  // it moved between our two statements (another writer): the caller should retry.
  if (o == TransitionResult::Outcome::kApplied)
    return Status::Retryable("state of the row changed between the update and the re-read; try again");
  return TransitionResult{o, std::move(current)};
}

}  // namespace idem
