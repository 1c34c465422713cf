// idem dlq list / show / replay / purge: the terminal queue console.
// Replay sends messages back through the main queue, so every guard applies
// again; replay and purge write an audit row naming the actor.
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "cli_checks.h"
#include "cli_util.h"
#include "json_out.h"

namespace idem::cli {
namespace {

using nlohmann::json;

// Ids as strings; payload and key byte-exact (see json_out.h).
json DeadToJson(const DeadLetter& d, bool with_payload) {
  json j{{"id", IdString(d.id)},
         {"msg_id", d.message.id},
         {"topic", d.message.topic},
         {"attempts", d.attempts},
         {"deliveries", d.message.delivery_count},
         {"first_failed", FormatTimeMs(d.first_failed_ms)},
         {"last_failed", FormatTimeMs(d.last_failed_ms)},
         {"reason", d.reason}};
  PutBytes(j, "key", d.message.key);
  if (with_payload) {
    j["headers"] = HeadersJson(d.message.headers);
    j["payload_encoding"] = PutBytes(j, "payload", d.message.payload);
    j["payload_bytes"] = d.message.payload.size();
  }
  return j;
}

struct DlqArgs {
  std::string queue;
  size_t limit = 50;
  int64_t after = 0;
  bool json = false;
  std::vector<int64_t> ids;
  bool all = false;
  bool yes = false;
  std::string actor;
};

// The broker's dead-letter console; a broker without one is an error that says so.
DeadLetters& ConsoleOf(Broker& q, const DlqArgs& a) {
  if (DeadLetters* d = q.dead_letters()) return *d;
  throw CliError("the broker at '" + RedactUrl(a.queue) + "' keeps no dead-letter queue idem can list (see docs/brokers.md)");
}

void List(const DlqArgs& a) {
  auto q = OpenQueueOrDie(a.queue, QueueAccess::kExisting);
  auto list = ConsoleOf(*q, a).List(a.limit, a.after);
  if (!list.ok()) throw CliError("cannot list dead letters: " + list.status().ToString());
  if (a.json) {
    for (const DeadLetter& d : *list) std::cout << DumpLine(DeadToJson(d, false)) << "\n";
    return;
  }
  if (list->empty()) {
    std::cout << "the terminal queue is empty\n";
    return;
  }
  std::printf("%-8s %-10s %-8s %-24s %s\n", "ID", "TOPIC", "ATTEMPTS", "LAST FAILED", "REASON");
  for (const DeadLetter& d : *list) {
    std::string reason = d.reason.size() > 100 ? d.reason.substr(0, 97) + "..." : d.reason;
    std::printf("%-8lld %-10s %-8d %-24s %s\n", static_cast<long long>(d.id), d.message.topic.c_str(), d.attempts,
                FormatTimeMs(d.last_failed_ms).c_str(), reason.c_str());
  }
  if (list->size() == a.limit)
    std::cout << "(more may follow: --after " << list->back().id << ")\n";
}

void Show(const DlqArgs& a) {
  if (a.ids.size() != 1) throw CliError("dlq show takes exactly one ID (see: idem dlq list)", 2);
  auto q = OpenQueueOrDie(a.queue, QueueAccess::kExisting);
  auto d = ConsoleOf(*q, a).Get(a.ids[0]);
  if (!d.ok()) throw CliError("cannot read dead letter: " + d.status().ToString());
  if (!d->has_value())
    throw CliError("no dead letter with id " + std::to_string(a.ids[0]) + " (see: idem dlq list --queue " +
                   RedactUrl(a.queue) + ")");
  if (a.json) {
    std::cout << DumpLine(DeadToJson(**d, true)) << "\n";
    return;
  }
  const DeadLetter& x = **d;
  std::cout << "id            " << x.id << "\n"
            << "message id    " << x.message.id << "\n"
            << "topic         " << x.message.topic << "\n"
            << "business key  " << x.message.key << "\n"
            << "attempts      " << x.attempts << "\n"
            << "deliveries    " << x.message.delivery_count << "\n"
            << "first failed  " << FormatTimeMs(x.first_failed_ms) << "\n"
            << "last failed   " << FormatTimeMs(x.last_failed_ms) << "\n"
            << "reason        " << x.reason << "\n"
            << "payload       (" << x.message.payload.size() << " bytes)\n"
            << x.message.payload << "\n";
}

std::vector<int64_t> Targets(const DlqArgs& a, const char* verb) {
  if (a.all == !a.ids.empty())
    throw CliError(std::string("dlq ") + verb + " needs either IDs or --all (not both)", 2);
  if (a.all) return {};
  const std::set<int64_t> unique(a.ids.begin(), a.ids.end());
  return {unique.begin(), unique.end()};
}

// Every id must name a dead letter before anything is moved: a typo must not
// replay or purge the others and then fail halfway.
void RequireAllExist(DeadLetters& q, const DlqArgs& a, const std::vector<int64_t>& ids, const char* nothing_done) {
  std::string missing;
  for (int64_t id : ids) {
    auto d = q.Get(id);
    if (!d.ok()) throw CliError("cannot read dead letter " + std::to_string(id) + ": " + d.status().ToString());
    if (!d->has_value()) missing += (missing.empty() ? "" : ", ") + std::to_string(id);
  }
  if (!missing.empty())
    throw CliError("no dead letter with id " + missing + ": " + nothing_done + " (see: idem dlq list --queue " +
                   RedactUrl(a.queue) + ")");
}

json ChangeJson(const char* verb, int64_t n, const DlqArgs& a, const std::vector<int64_t>& ids) {
  json j{{verb, n}, {"all", a.all}};
  json id_list = json::array();
  for (int64_t id : ids) id_list.push_back(IdString(id));
  if (!a.all) j["ids"] = id_list;
  return j;
}

// Between the check and the change another operator may have moved some.
void RequireAllChanged(int64_t n, const DlqArgs& a, const std::vector<int64_t>& ids, const char* verb) {
  if (a.all || n >= static_cast<int64_t>(ids.size())) return;
  throw CliError(std::to_string(n) + " of the " + std::to_string(ids.size()) + " dead letters were " + verb +
                 "; the others left the terminal queue meanwhile (see: idem dlq list --queue " + RedactUrl(a.queue) +
                 ")");
}

void Replay(const DlqArgs& a) {
  auto ids = Targets(a, "replay");
  auto q = OpenQueueOrDie(a.queue, QueueAccess::kExisting);
  DeadLetters& dead = ConsoleOf(*q, a);
  RequireAllExist(dead, a, ids, "nothing was replayed");
  auto n = dead.Replay(ids, ResolveActor(a.actor));
  if (!n.ok()) throw CliError("replay failed, nothing was moved: " + n.status().ToString());
  if (a.json) std::cout << DumpLine(ChangeJson("replayed", *n, a, ids)) << "\n";
  else if (*n > 0 || a.all)
    std::cout << "replayed " << *n << " message(s) into the main queue; every guard applies again\n";
  RequireAllChanged(*n, a, ids, "replayed");
}

void Purge(const DlqArgs& a) {
  auto ids = Targets(a, "purge");
  if (a.all && !a.yes) throw CliError("dlq purge --all deletes every dead letter for good; add --yes to confirm", 2);
  auto q = OpenQueueOrDie(a.queue, QueueAccess::kExisting);
  DeadLetters& dead = ConsoleOf(*q, a);
  RequireAllExist(dead, a, ids, "nothing was purged");
  auto n = dead.Purge(ids, ResolveActor(a.actor));
  if (!n.ok()) throw CliError("purge failed, nothing was deleted: " + n.status().ToString());
  if (a.json) std::cout << DumpLine(ChangeJson("purged", *n, a, ids)) << "\n";
  else if (*n > 0 || a.all) std::cout << "purged " << *n << " dead letter(s)\n";

  RequireAllChanged(*n, a, ids, "purged");
}

}  // namespace

void AddDlqCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("dlq",
                                 "The terminal (dead-letter) queue: messages that failed for good, with the reason.\n"
                                 "Fix the cause, then replay: the message goes back through every guard.");
  cmd->require_subcommand(1);
  auto a = std::make_shared<DlqArgs>();
  const CLI::Validator kId = IntegerIn(0, std::numeric_limits<int64_t>::max());
  auto common = [&](CLI::App* sub) {
    sub->add_option("--queue", a->queue, "Queue file or broker URL; it must exist (nothing is created)")->required();
  };
  auto* list = cmd->add_subcommand("list", "List dead letters: id, topic, attempts, last failure, reason");
  common(list);
  list->add_option("--limit", a->limit, "At most this many")->capture_default_str()->transform(IntegerIn(1, 1'000'000));
  list->add_option("--after", a->after, "Only ids greater than this (paging)")->transform(kId);
  list->add_flag("--json", a->json, "One JSON object per line (id as a string; key, or key_base64 if not UTF-8)");
  list->callback([a] { List(*a); });

  auto* show = cmd->add_subcommand("show", "Show one dead letter with its body, headers and reason");
  common(show);
  show->add_option("id", a->ids, "Dead letter id")->required()->expected(1)->transform(kId);
  show->add_flag("--json", a->json,
                 "Print one JSON object; the payload byte-exact: \"payload\" when it is UTF-8, else\n"
                 "\"payload_base64\" (\"payload_encoding\" says which)");
  show->callback([a] { Show(*a); });

  auto* replay = cmd->add_subcommand("replay", "Send dead letters back through the main queue");
  common(replay);
  replay->add_option("ids", a->ids, "Dead letter ids (every one must exist, or nothing is replayed)")->transform(kId);
  replay->add_flag("--all", a->all, "Replay every dead letter");
  replay->add_flag("--json", a->json, "Print one JSON object: replayed (a count), ids (strings)");
  replay->add_option("--actor", a->actor, "Who is replaying (audit); default $IDEM_ACTOR or $USER");
  replay->callback([a] { Replay(*a); });

  auto* purge = cmd->add_subcommand("purge", "Delete dead letters for good");
  common(purge);
  purge->add_option("ids", a->ids, "Dead letter ids (every one must exist, or nothing is purged)")->transform(kId);
  purge->add_flag("--all", a->all, "Delete every dead letter (needs --yes)");
  purge->add_flag("--json", a->json, "Print one JSON object: purged (a count), ids (strings)");
  purge->add_flag("--yes", a->yes, "Confirm --all");
  purge->add_option("--actor", a->actor, "Who is purging (audit); default $IDEM_ACTOR or $USER");
  purge->callback([a] { Purge(*a); });
}

}  // namespace idem::cli
