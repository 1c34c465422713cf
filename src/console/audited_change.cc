#include "console/audited_change.h"

namespace idem::console {

const char* ActionName(DeadLetterAction action) { return action == DeadLetterAction::kReplay ? "replay" : "purge"; }

std::string IdList(const std::vector<int64_t>& ids) {
  if (ids.empty()) return "all";
  std::string out;
  for (int64_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

Result<int64_t> ApplyAudited(DeadLetters& dead, AuditLog& audit, const Identity& who, const ChangeRequest& change,
                             Env* env) {
  const char* verb = ActionName(change.action);
  if (who.role != Role::kOperator)
    return Status::Permanent(who.name + " has the read-only role and may not " + verb +
                             " dead letters: give them role = \"operator\" in [[console.operator]]");
  auto row = audit.Begin(who, verb, change.broker, IdList(change.ids), env->NowMs());
  if (!row.ok())
    return Status::Unavailable(std::string("cannot write the audit row, so nothing was ") +
                               (change.action == DeadLetterAction::kReplay ? "replayed" : "purged") + ": " +
                               row.status().ToString());
  // The broker's own mark names the operator as well (x-idem-replay, idem_queue_audit).
  auto n = change.action == DeadLetterAction::kReplay ? dead.Replay(change.ids, who.name)
                                                      : dead.Purge(change.ids, who.name);
  const Status finished = audit.Finish(*row, n.ok() ? *n : -1, n.ok() ? "ok" : n.status().ToString());
  if (!n.ok()) return n.status();
  if (!finished.ok())
    return Status::Unavailable(std::string(verb) + " of " + std::to_string(*n) +
                               " dead letter(s) went through, but its audit row " + std::to_string(*row) +
                               " still says \"started\": " + finished.ToString());
  return *n;
}

}  // namespace idem::console
