// idem dlq list / show / replay / purge / audit: the terminal queue console.
// Replay sends messages back through the main queue, so every guard applies
// again; replay and purge write a row to idem_audit in the store naming who
// did it — an operator checked against the configuration, or the OS account —
// through the same code as the browser console (console/audited_change.h).
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "cli_checks.h"
#include "cli_util.h"
#include "console/audited_change.h"
#include "console/command_line_identity.h"
#include "idem/store_access.h"
#include "json_out.h"
#include "terminal_text.h"
#include "service/config.h"
#include "store/dead_letter_table.h"
#include "store/schema/schema.h"

namespace idem::cli {
namespace {

using nlohmann::json;

// Ids as strings; every field a producer's bytes reach (id, topic, key,
// reason, payload, headers) byte-exact: the text when it is UTF-8, else
// FIELD_base64 (see json_out.h).
json DeadToJson(const DeadLetter& d, bool with_payload) {
  json j{{"id", IdString(d.id)},
         {"attempts", d.attempts},
         {"deliveries", d.message.delivery_count},
         {"first_failed", FormatTimeMs(d.first_failed_ms)},
         {"last_failed", FormatTimeMs(d.last_failed_ms)}};
  PutBytes(j, "msg_id", d.message.id);
  PutBytes(j, "topic", d.message.topic);
  PutBytes(j, "reason", d.reason);
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
  std::string config;  // the file idem run reads: broker, store and operators
  std::string store;   // where the audit lives, instead of the config's [store]
  int64_t before = 0;  // dlq audit: only rows older than this id
  bool stored = false;  // dlq show: the id is of a dead letter kept in the store
};

// --config fills what the command line left out; the command line wins.
struct Resolved {
  std::optional<service::ServiceConfig> config;
  std::string store;
};

Resolved Resolve(DlqArgs& a) {
  Resolved r;
  if (!a.config.empty()) {
    auto c = service::LoadConfig(a.config);
    if (!c.ok()) throw CliError(c.status().message(), 2);
    r.config = std::move(*c);
    if (a.queue.empty()) a.queue = r.config->broker_url;
    r.store = r.config->store_url;
  }
  if (!a.store.empty()) r.store = a.store;
  return r;
}

void RequireQueue(const DlqArgs& a) {
  if (a.queue.empty()) throw CliError("name the queue: --broker FILE_OR_URL, or --config FILE (its [broker] url)", 2);
}

// Reading the audit (verb "audit") creates nothing: a wrong --store is refused,
// not answered with an empty trail in a new file.
std::unique_ptr<Store> OpenAuditStoreOrDie(const Resolved& r, const char* verb) {
  if (r.store.empty())
    throw CliError(std::string("dlq ") + verb + " is audited in the store: pass --config FILE (the one idem run "
                   "reads) or --store URL", 2);
  const bool reading = std::string_view(verb) == "audit";
  auto store = OpenStore(r.store, Env::Default(), reading ? StoreAccess::kExisting : StoreAccess::kCreate);
  if (!store.ok()) throw CliError("cannot open the audit store '" + RedactUrl(r.store) + "': " + store.status().ToString());
  return std::move(*store);
}

// The broker's dead-letter console; a broker without one is an error that says so.
DeadLetters& ConsoleOf(Broker& q, const DlqArgs& a) {
  if (DeadLetters* d = q.dead_letters()) return *d;
  throw CliError("the broker at '" + RedactUrl(a.queue) + "' keeps no dead-letter queue idem can list (see docs/brokers.md)");
}

// Where a dead letter is kept, for what the two listings print differently.
enum class KeptIn { kBroker, kStore };

// One line each; `when` heads the failure-time column.
void PrintRows(const std::vector<DeadLetter>& list, const char* when) {
  std::printf("%-8s %-10s %-8s %-24s %s\n", "ID", "TOPIC", "ATTEMPTS", when, "REASON");
  for (const DeadLetter& d : list) {
    // Escaped before it is cut, so the cut never splits an escape (and an
    // escaped string holds no NUL for %s to stop at).
    std::string reason = TerminalSafe(d.reason);
    if (reason.size() > 100) reason = reason.substr(0, 97) + "...";
    std::printf("%-8lld %-10s %-8d %-24s %s\n", static_cast<long long>(d.id), TerminalSafe(d.message.topic).c_str(),
                d.attempts, FormatTimeMs(d.last_failed_ms).c_str(), reason.c_str());
  }
}

void PrintJson(const DeadLetter& d, bool with_payload, KeptIn kept) {
  json j = DeadToJson(d, with_payload);
  if (kept == KeptIn::kStore) j["kept_in"] = "store";
  std::cout << DumpLine(j) << "\n";
}

// Producer bytes are escaped (terminal_text.h); --json has them exactly.
void PrintDetail(const DeadLetter& x, KeptIn kept) {
  const bool broker = kept == KeptIn::kBroker;
  std::cout << "id            " << x.id << (broker ? "" : " (kept in the store)") << "\n"
            << "message id    " << TerminalSafe(x.message.id) << "\n"
            << "topic         " << TerminalSafe(x.message.topic) << "\n"
            << "business key  " << TerminalSafe(x.message.key) << "\n"
            << "attempts      " << x.attempts << "\n";
  if (broker)
    std::cout << "deliveries    " << x.message.delivery_count << "\n"
              << "first failed  " << FormatTimeMs(x.first_failed_ms) << "\n"
              << "last failed   " << FormatTimeMs(x.last_failed_ms) << "\n";
  else
    std::cout << "parked        " << FormatTimeMs(x.last_failed_ms) << "\n";
  std::cout << "reason        " << TerminalSafe(x.reason) << "\n";
  if (broker)
    for (const auto& [name, value] : x.message.headers)
      std::cout << "header        " << TerminalSafe(name) << ": " << TerminalSafe(value) << "\n";
  std::cout << "payload       (" << x.message.payload.size() << " bytes, escaped: see --json for the exact bytes)\n"
            << TerminalSafe(x.message.payload) << "\n";
}

void List(const DlqArgs& a) {
  auto q = OpenQueueOrDie(a.queue, QueueAccess::kExisting);
  auto list = ConsoleOf(*q, a).List(a.limit, a.after);
  if (!list.ok()) throw CliError("cannot list dead letters: " + list.status().ToString());
  if (a.json) {
    for (const DeadLetter& d : *list) PrintJson(d, false, KeptIn::kBroker);
    return;
  }
  if (list->empty()) {
    std::cout << "the terminal queue is empty\n";
    return;
  }
  PrintRows(*list, "LAST FAILED");
  if (list->size() == a.limit)
    std::cout << "(more may follow: --after " << list->back().id << ")\n";
}

void Show(const DlqArgs& a) {
  if (a.ids.size() != 1) throw CliError("dlq show takes exactly one ID (see: idem dlq list)", 2);
  auto q = OpenQueueOrDie(a.queue, QueueAccess::kExisting);
  auto d = ConsoleOf(*q, a).Get(a.ids[0]);
  if (!d.ok()) throw CliError("cannot read dead letter: " + d.status().ToString());
  if (!d->has_value())
    throw CliError("no dead letter with id " + std::to_string(a.ids[0]) + " (see: idem dlq list --broker " +
                   RedactUrl(a.queue) + ")");
  if (a.json) PrintJson(**d, true, KeptIn::kBroker);
  else PrintDetail(**d, KeptIn::kBroker);
}

// ---- Dead letters kept in the store: what the broker could not take back ----
// (docs/retries-and-dlq.md): listed after the broker's, shown with --stored.

// Read-only: a store that does not exist (or is not an idem store yet) keeps
// no dead letters, and none is created to find that out.
Result<std::unique_ptr<Store>> OpenKeptStore(const std::string& url) {
  return OpenStore(url, Env::Default(), StoreAccess::kExisting);
}

void ListKeptInStore(const DlqArgs& a, const std::string& store_url) {
  auto store = OpenKeptStore(store_url);
  if (!store.ok() && store.status().IsNotFound()) return;
  if (!store.ok())
    throw CliError("cannot open the store '" + RedactUrl(store_url) + "': " + store.status().ToString());
  // A store idem run has not opened since an upgrade has no idem_dead_letters yet: nothing kept.
  auto tx = (*store)->Begin();
  if (!tx.ok()) throw CliError("cannot read the store '" + RedactUrl(store_url) + "': " + tx.status().ToString());
  auto kept = schema::HasTable(**tx, "idem_dead_letters");
  (*tx)->Rollback();
  if (kept.ok() && !*kept) return;
  auto list = store_dead_letters::List(**store, a.limit, a.after);
  if (!list.ok()) throw CliError("cannot list the dead letters kept in the store: " + list.status().ToString());
  if (a.json) {
    for (const DeadLetter& d : *list) PrintJson(d, false, KeptIn::kStore);
    return;
  }
  if (list->empty()) return;
  std::cout << "\nkept in the store (idem_dead_letters): too large for the broker's dead-letter queue; "
               "see them with: idem dlq show --stored ID\n";
  PrintRows(*list, "PARKED");
}

void ShowKeptInStore(const DlqArgs& a, const std::string& store_url) {
  if (a.ids.size() != 1) throw CliError("dlq show takes exactly one ID (see: idem dlq list)", 2);
  if (store_url.empty())
    throw CliError("dlq show --stored reads the store: pass --config FILE (the one idem run reads) or --store URL", 2);
  auto store = OpenKeptStore(store_url);
  if (!store.ok())
    throw CliError("cannot open the store '" + RedactUrl(store_url) + "': " + store.status().ToString());
  auto d = store_dead_letters::Get(**store, a.ids[0]);
  if (!d.ok()) throw CliError("cannot read the dead letter kept in the store: " + d.status().ToString());
  if (!d->has_value())
    throw CliError("no dead letter with id " + std::to_string(a.ids[0]) + " is kept in the store (see: idem dlq list)");
  if (a.json) PrintJson(**d, true, KeptIn::kStore);
  else PrintDetail(**d, KeptIn::kStore);
}

std::vector<int64_t> Targets(const DlqArgs& a, const char* verb) {
  if (a.all == !a.ids.empty())
    throw CliError(std::string("dlq ") + verb + " needs either IDs or --all (not both)", 2);
  if (a.all) return {};
  const std::set<int64_t> unique(a.ids.begin(), a.ids.end());
  return {unique.begin(), unique.end()};
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
                 "; the others left the terminal queue meanwhile (see: idem dlq list --broker " + RedactUrl(a.queue) +
                 ")");
}

// Replay and purge share everything but the verb: identify, check, apply audited.
int64_t ApplyChange(DlqArgs& a, console::DeadLetterAction action, const std::vector<int64_t>& ids) {
  const char* verb = console::ActionName(action);
  const Resolved r = Resolve(a);
  RequireQueue(a);
  auto q = OpenQueueOrDie(a.queue, QueueAccess::kExisting);
  DeadLetters& dead = ConsoleOf(*q, a);
  auto who = console::CommandLineIdentity(r.config ? &r.config->console : nullptr);
  if (!who.ok()) throw CliError(who.status().message(), 2);
  if (who->role != console::Role::kOperator)
    throw CliError("operator \"" + who->name + "\" has the read-only role and may not " + verb +
                   " dead letters (see [[console.operator]] role in " + a.config + ")", 2);
  std::unique_ptr<Store> store = OpenAuditStoreOrDie(r, verb);
  auto audit = console::AuditLog::Open(store.get());
  if (!audit.ok()) throw CliError(audit.status().message());
  // An id that names no dead letter changes nothing (ApplyAudited checks them all first).
  auto n = console::ApplyAudited(dead, *audit, *who, {action, ids, RedactUrl(a.queue)}, Env::Default());
  if (!n.ok() && n.status().IsNotFound())
    throw CliError(n.status().message() + " (see: idem dlq list --broker " + RedactUrl(a.queue) + ")");
  if (!n.ok()) throw CliError(std::string(verb) + " failed: " + n.status().ToString());
  return *n;
}

void Replay(DlqArgs& a) {
  auto ids = Targets(a, "replay");
  const int64_t n = ApplyChange(a, console::DeadLetterAction::kReplay, ids);
  if (a.json) std::cout << DumpLine(ChangeJson("replayed", n, a, ids)) << "\n";
  else if (n > 0 || a.all)
    std::cout << "replayed " << n << " message(s) into the main queue; every guard applies again\n";
  RequireAllChanged(n, a, ids, "replayed");
}

void Purge(DlqArgs& a) {
  auto ids = Targets(a, "purge");
  if (a.all && !a.yes) throw CliError("dlq purge --all deletes every dead letter for good; add --yes to confirm", 2);
  const int64_t n = ApplyChange(a, console::DeadLetterAction::kPurge, ids);
  if (a.json) std::cout << DumpLine(ChangeJson("purged", n, a, ids)) << "\n";
  else if (n > 0 || a.all) std::cout << "purged " << n << " dead letter(s)\n";
  RequireAllChanged(n, a, ids, "purged");
}

// The audit trail of replays and purges, newest first.
void Audit(DlqArgs& a) {
  const Resolved r = Resolve(a);
  std::unique_ptr<Store> store = OpenAuditStoreOrDie(r, "audit");
  auto audit = console::AuditLog::OpenExisting(store.get());
  if (!audit.ok()) throw CliError(audit.status().message());
  auto rows = audit->List(a.limit, a.before);
  if (!rows.ok()) throw CliError("cannot read the audit: " + rows.status().ToString());
  if (a.json) {
    for (const console::AuditEntry& e : *rows)
      std::cout << DumpLine({{"id", IdString(e.id)},
                             {"at", FormatTimeMs(e.at_ms)},
                             {"operator", e.operator_name},
                             {"authenticated_by", e.authenticated_by},
                             {"action", e.action},
                             {"broker", e.broker},
                             {"dead_letter_ids", e.dead_letter_ids},
                             {"changed", e.changed},
                             {"outcome", e.outcome}})
                << "\n";
    return;
  }
  if (rows->empty()) {
    std::cout << "no replay or purge has been audited in this store\n";
    return;
  }
  std::printf("%-6s %-24s %-16s %-22s %-7s %-8s %-7s %s\n", "ID", "AT", "OPERATOR", "AUTHENTICATED BY", "ACTION",
              "CHANGED", "OUTCOME", "DEAD LETTERS");
  for (const console::AuditEntry& e : *rows)
    std::printf("%-6lld %-24s %-16s %-22s %-7s %-8lld %-7s %s\n", static_cast<long long>(e.id),
                FormatTimeMs(e.at_ms).c_str(), e.operator_name.c_str(), e.authenticated_by.c_str(), e.action.c_str(),
                static_cast<long long>(e.changed), e.outcome.c_str(), e.dead_letter_ids.c_str());
  if (rows->size() == a.limit) std::cout << "(older rows may follow: --before " << rows->back().id << ")\n";
}

}  // namespace

// How replay and purge know who is acting (console/command_line_identity.h).
static const std::string kWho =
    "\nThe audit names you: IDEM_OPERATOR with IDEM_OPERATOR_SECRET checked against the\n"
    "[[console.operator]] tables of --config, or else your OS account.";

void AddDlqCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("dlq",
                                 "The terminal (dead-letter) queue: messages that failed for good, with the reason.\n"
                                 "Fix the cause, then replay: the message goes back through every guard.");
  cmd->require_subcommand(1);
  auto a = std::make_shared<DlqArgs>();
  const CLI::Validator kId = IntegerIn(0, std::numeric_limits<int64_t>::max());
  auto common = [&](CLI::App* sub) {
    AddBrokerOption(sub, &a->queue, "Queue file or broker URL; it must exist (nothing is created)");
    sub->add_option("--config", a->config,
                    "The configuration idem run reads: its [broker] url when --broker is not given, its [store]\n"
                    "for the audit, its [[console.operator]] tables for IDEM_OPERATOR");
  };
  auto audited = [&](CLI::App* sub) {
    AddStoreOption(sub, &a->store, "The store that keeps the audit (idem_audit), instead of the config's [store]");
  };
  auto* list = cmd->add_subcommand("list", "List dead letters: id, topic, attempts, last failure, reason");
  common(list);
  list->add_option("--limit", a->limit, "At most this many")->capture_default_str()->transform(IntegerIn(1, 1'000'000));
  list->add_option("--after", a->after, "Only ids greater than this (paging)")->transform(kId);
  list->add_flag("--json", a->json, "One JSON object per line (id as a string; a field whose bytes are not UTF-8,\n"
                "such as key or reason, as key_base64, reason_base64)");
  list->add_option("--store", a->store, "Also list the dead letters kept in this store (default: the config's [store])");
  list->callback([a] {
    const Resolved r = Resolve(*a);
    RequireQueue(*a);
    List(*a);
    if (!r.store.empty()) ListKeptInStore(*a, r.store);
  });

  auto* show = cmd->add_subcommand("show", "Show one dead letter with its body, headers and reason");
  common(show);
  show->add_option("id", a->ids, "Dead letter id")->required()->expected(1)->transform(kId);
  show->add_flag("--json", a->json,
                 "Print one JSON object; the payload byte-exact: \"payload\" when it is UTF-8, else\n"
                 "\"payload_base64\" (\"payload_encoding\" says which)");
  show->add_flag("--stored", a->stored, "ID is of a dead letter kept in the store (too large for the broker)");
  show->add_option("--store", a->store, "The store for --stored (default: the config's [store])");
  show->callback([a] {
    const Resolved r = Resolve(*a);
    if (a->stored) return ShowKeptInStore(*a, r.store);
    RequireQueue(*a);
    Show(*a);
  });

  auto* replay = cmd->add_subcommand("replay", "Send dead letters back through the main queue (audited: see dlq audit)" + kWho);
  common(replay);
  replay->add_option("ids", a->ids, "Dead letter ids (every one must exist, or nothing is replayed)")->transform(kId);
  replay->add_flag("--all", a->all, "Replay every dead letter");
  replay->add_flag("--json", a->json, "Print one JSON object: replayed (a count), ids (strings)");
  audited(replay);
  replay->callback([a] { Replay(*a); });

  auto* purge = cmd->add_subcommand("purge", "Delete dead letters for good (audited: see dlq audit)" + kWho);
  common(purge);
  purge->add_option("ids", a->ids, "Dead letter ids (every one must exist, or nothing is purged)")->transform(kId);
  purge->add_flag("--all", a->all, "Delete every dead letter (needs --yes)");
  purge->add_flag("--json", a->json, "Print one JSON object: purged (a count), ids (strings)");
  purge->add_flag("--yes", a->yes, "Confirm --all");
  audited(purge);
  purge->callback([a] { Purge(*a); });

  auto* audit = cmd->add_subcommand("audit",
                                    "List the audited replays and purges, newest first: who (and how they were\n"
                                    "identified), when, what, which dead letters, the outcome");
  audit->add_option("--config", a->config, "The configuration idem run reads (its [store] keeps the audit)");
  audited(audit);
  audit->add_option("--limit", a->limit, "At most this many")->capture_default_str()->transform(IntegerIn(1, 1'000'000));
  audit->add_option("--before", a->before, "Only rows with ids below this (paging)")->transform(kId);
  audit->add_flag("--json", a->json, "One JSON object per line");
  audit->callback([a] { Audit(*a); });
}

}  // namespace idem::cli
