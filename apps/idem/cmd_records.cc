// idem records: the consumption records, for an operator.
//   list    the records that need a look: PROCESSING past their lease and FAILED
//           (or every record of one --status), oldest first
//   show    one record by group and key
//   sweep   retention now, with the window and bounds of a configuration file;
//           refuses a window shorter than the longest redelivery window
#include <iostream>

#include "cli_checks.h"
#include "cli_util.h"
#include "idem/store_access.h"
#include "json_out.h"
#include "terminal_text.h"
#include "ops/record_listing.h"
#include "ops/sweeper.h"
#include "service/config.h"
#include "service/service.h"

namespace idem::cli {
namespace {

// Every records command reads or trims an existing store: none creates one
// (a wrong path would otherwise list a new empty store as healthy).
std::unique_ptr<Store> OpenStoreOrDie(const std::string& url) {
  auto s = OpenStore(url, Env::Default(), StoreAccess::kExisting);
  if (!s.ok()) throw CliError("cannot open the store " + RedactUrl(url) + ": " + s.status().ToString());
  return std::move(*s);
}

nlohmann::json RecordJson(const Record& r) {
  nlohmann::json j{{"group", r.consumer_group},
                   {"status", std::string(RecordStatusName(r.status))},
                   {"fingerprint", r.fingerprint},
                   {"attempts", r.attempts},
                   {"duplicates", r.duplicates},
                   {"lease_until_ms", r.lease_until_ms},
                   {"first_seen_ms", r.first_seen_ms},
                   {"last_seen_ms", r.last_seen_ms}};
  // What a producer's bytes reach, exactly: the text, or FIELD_base64 (json_out.h).
  PutBytes(j, "key", r.key);
  PutBytes(j, "message_id", r.message_id);
  PutBytes(j, "last_error", r.last_error);
  PutBytes(j, "result_summary", r.result_summary);
  return j;
}

void PrintRecord(const Record& r, int64_t now_ms) {
  // Keys, ids and errors may quote a producer's bytes: escaped (terminal_text.h).
  std::cout << "group        " << TerminalSafe(r.consumer_group) << "\n"
            << "key          " << TerminalSafe(r.key) << "\n"
            << "status       " << RecordStatusName(r.status);
  if (r.status == RecordStatus::kProcessing && r.lease_until_ms < now_ms) std::cout << " (lease expired: stuck)";
  std::cout << "\n"
            << "attempts     " << r.attempts << "\n"
            << "duplicates   " << r.duplicates << "\n"
            << "message id   " << TerminalSafe(r.message_id) << "\n"
            << "lease until  " << FormatTimeMs(r.lease_until_ms) << "\n"
            << "first seen   " << FormatTimeMs(r.first_seen_ms) << "\n"
            << "last seen    " << FormatTimeMs(r.last_seen_ms) << "\n";
  if (!r.last_error.empty()) std::cout << "last error   " << TerminalSafe(r.last_error) << "\n";
  if (!r.result_summary.empty()) std::cout << "summary      " << TerminalSafe(r.result_summary) << "\n";
}

struct ListArgs {
  std::string store, group, status;
  int64_t limit = 100;
  bool json = false;
};

void List(const ListArgs& a) {
  ops::RecordFilter f;
  f.group = a.group;
  f.limit = a.limit;
  if (!a.status.empty()) {
    RecordStatus s;
    if (!ParseRecordStatus(a.status, &s))
      throw CliError("--status must be PROCESSING, SUCCEEDED, FAILED or RELEASED, not '" + a.status + "'", 2);
    f.status = s;
  }
  auto store = OpenStoreOrDie(a.store);
  const int64_t now = Env::Default()->NowMs();
  auto records = ops::ListRecords(*store, f, now);
  if (!records.ok()) throw CliError("cannot list records: " + records.status().ToString());
  if (a.json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const Record& r : *records) arr.push_back(RecordJson(r));
    std::cout << DumpLine(arr) << "\n";
    return;
  }
  if (records->empty()) {
    std::cout << (f.status ? "no records with status " + a.status
                           : std::string("no record stuck in PROCESSING past its lease, none FAILED"))
              << "\n";
    return;
  }
  for (const Record& r : *records) {
    std::string status(RecordStatusName(r.status));
    if (r.status == RecordStatus::kProcessing && r.lease_until_ms < now) status += " (stuck)";
    std::cout << TerminalSafe(r.consumer_group) << "  " << TerminalSafe(r.key) << "  " << status << "  attempts "
              << r.attempts << "  last seen " << FormatTimeMs(r.last_seen_ms)
              << (r.last_error.empty() ? "" : "  " + TerminalSafe(r.last_error)) << "\n";
  }
}

}  // namespace

void AddRecordsCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("records", "Inspect and sweep the consumption records");
  cmd->require_subcommand(1);

  auto list = std::make_shared<ListArgs>();
  auto* ls = cmd->add_subcommand("list",
                                 "Records that need a look: PROCESSING past their lease (stuck) and FAILED,\n"
                                 "oldest first; --status lists every record of one status instead.");
  AddStoreOption(ls, &list->store, "Store URL, e.g. sqlite:payments.db")->required();
  ls->add_option("--group", list->group, "Only this consumer group");
  ls->add_option("--status", list->status, "PROCESSING, SUCCEEDED, FAILED or RELEASED");
  ls->add_option("--limit", list->limit, "At most this many")->capture_default_str()->transform(IntegerIn(1, 100'000));
  ls->add_flag("--json", list->json, "Print one JSON array of records");
  ls->callback([list] { List(*list); });

  auto show = std::make_shared<ListArgs>();
  auto key = std::make_shared<std::string>();
  auto* sh = cmd->add_subcommand("show", "One record by consumer group and idempotency key");
  AddStoreOption(sh, &show->store, "Store URL")->required();
  sh->add_option("--group", show->group, "Consumer group")->required();
  sh->add_option("--key", *key, "Idempotency key, e.g. pay.success:PAY000001")->required();
  sh->add_flag("--json", show->json, "Print one JSON object");
  sh->callback([show, key] {
    auto store = OpenStoreOrDie(show->store);
    auto r = store->ReadRecord(show->group, *key);
    if (!r.ok()) throw CliError("cannot read the record: " + r.status().ToString());
    if (!r->has_value())
      throw CliError("no record for key '" + *key + "' in group '" + show->group +
                     "' (never consumed, or swept by retention)");
    if (show->json) std::cout << DumpLine(RecordJson(**r)) << "\n";
    else PrintRecord(**r, Env::Default()->NowMs());
  });

  auto config = std::make_shared<std::string>();
  auto window_days = std::make_shared<int64_t>(0);
  auto* sw = cmd->add_subcommand("sweep",
                                 "Delete finished records older than the retention window now, in bounded\n"
                                 "batches, with the store and [retention] of a configuration file. Refuses a\n"
                                 "window shorter than the longest redelivery window of that file.");
  sw->add_option("--config", *config, "The configuration file of the service")->required();
  sw->add_option("--window-days", *window_days, "Override [retention] window_days")->transform(IntegerIn(1, 36'500));
  sw->callback([config, window_days] {
    auto c = service::LoadConfig(*config);
    if (!c.ok()) throw CliError(c.status().message(), 2);
    if (*window_days > 0) c->retention.window_days = *window_days;
    // A window the file gets wrong is a usage error (exit 2) before the store is looked at.
    const ops::SweepOptions options = service::SweepOptionsFor(c->retention);
    const int64_t min_window_ms = service::LongestRedeliveryWindowMs(*c);
    if (auto valid = ops::Sweeper::Create(nullptr, options, min_window_ms); !valid.ok())
      throw CliError(valid.status().message(), 2);
    auto store = OpenStoreOrDie(c->store_url);
    auto sweeper = ops::Sweeper::Create(store.get(), options, min_window_ms);
    if (!sweeper.ok()) throw CliError(sweeper.status().message(), 2);
    ops::SweepStep step;
    int64_t batches = 0;
    do {
      step = sweeper->RunIfDue(Env::Default()->NowMs());
      ++batches;
    } while (!step.pass_done);
    if (!step.status.ok())
      throw CliError("sweep stopped after deleting " + std::to_string(step.pass_deleted) +
                     " record(s): " + step.status.ToString());
    std::cout << "swept " << step.pass_deleted << " record(s) last seen before " << FormatTimeMs(step.cutoff_ms)
              << " in " << batches << " batch(es) of at most " << c->retention.sweep_batch_rows << "\n";
  });
}

}  // namespace idem::cli
