#include "console/audited_change.h"

namespace idem::console {

const char* ActionName(DeadLetterAction action) { return action == DeadLetterAction::kReplay ? "replay" : "purge"; }

std::string IdList(const std::vector<int64_t>& ids) {
  if (ids.empty()) return "all";
  std::string out;
  for (int64_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

namespace {

// The dead letters a change names, read before anything moves; the ids that
// name none go to `missing`. For a replay each one read gets a grant. "All"
// (no ids) is every one listed now, and exactly those are replayed, so one
// that arrives meanwhile stays parked rather than replayed without a grant.
Result<std::vector<DeadLetter>> Targets(DeadLetters& dead, const std::vector<int64_t>& ids,
                                        std::vector<int64_t>* missing) {
  std::vector<DeadLetter> out;
  if (ids.empty()) {
    constexpr size_t kPage = 1000;
    for (int64_t after = 0;;) {
      auto page = dead.List(kPage, after);
      if (!page.ok()) return page.status();
      for (DeadLetter& d : *page) out.push_back(std::move(d));
      if (page->size() < kPage) return out;
      after = out.back().id;
    }
  }
  for (int64_t id : ids) {
    auto d = dead.Get(id);
    if (!d.ok()) return d.status();
    if (d->has_value()) out.push_back(std::move(**d));
    else missing->push_back(id);
  }
  return out;
}

}  // namespace

Result<int64_t> ApplyAudited(DeadLetters& dead, AuditLog& audit, const Identity& who, const ChangeRequest& change,
                             Env* env) {
  const char* verb = ActionName(change.action);
  if (who.role != Role::kOperator)
    return Status::Permanent(who.name + " has the read-only role and may not " + verb +
                             " dead letters: give them role = \"operator\" in [[console.operator]]");
  const bool replay = change.action == DeadLetterAction::kReplay;
  const std::string nothing = std::string("nothing was ") + (replay ? "replayed" : "purged");
  std::vector<Message> granted;
  std::vector<int64_t> ids = change.ids, missing;
  // A purge of "all" needs no list: the broker deletes whatever is parked.
  if (replay || !change.ids.empty()) {
    auto targets = Targets(dead, change.ids, &missing);
    if (!targets.ok())
      return Status::Unavailable("cannot read the dead letters to " + std::string(verb) + ", so " + nothing + ": " +
                                 targets.status().ToString());
    if (change.ids.empty())
      for (const DeadLetter& d : *targets) ids.push_back(d.id);
    if (replay)
      for (DeadLetter& d : *targets) granted.push_back(std::move(d.message));
  }
  // A typo must not change the others and then fail halfway: an id that names
  // no dead letter stops the whole change, with an audit row that says so.
  if (!missing.empty()) granted.clear();
  auto row = audit.Begin(who, verb, change.broker, IdList(change.ids), env->NowMs(), granted);
  if (!row.ok())
    return Status::Unavailable("cannot write the audit row, so " + nothing + ": " + row.status().ToString());
  if (!missing.empty()) {
    const Status finished = audit.Finish(*row, 0, kOutcomeNotFound);
    if (!finished.ok())
      return Status::Unavailable("no dead letter with id " + IdList(missing) + ", so " + nothing + ", but audit row " +
                                 std::to_string(*row) + " still says \"started\": " + finished.ToString());
    return Status::NotFound("no dead letter with id " + IdList(missing) + ": " + nothing);
  }
  // The broker's own mark names the operator as well (x-idem-replay, idem_queue_audit).
  // "All" of none replays nothing (not whatever arrives meanwhile).
  Result<int64_t> n = int64_t{0};
  if (!replay) n = dead.Purge(change.ids, who.name);
  else if (!ids.empty()) n = dead.Replay(ids, who.name);
  const Status finished = audit.Finish(*row, n.ok() ? *n : -1, n.ok() ? "ok" : n.status().ToString());
  if (!n.ok()) return n.status();
  if (!finished.ok())
    return Status::Unavailable(std::string(verb) + " of " + std::to_string(*n) +
                               " dead letter(s) went through, but its audit row " + std::to_string(*row) +
                               " still says \"started\": " + finished.ToString());
  return *n;
}

}  // namespace idem::console
