// idem outbox relay: publishes what handlers emitted (HandlerContext::Emit) and
// marks it sent after the broker's confirm. idem outbox stats: the rows by state.
//
// The relay runs until SIGINT/SIGTERM (finishing the step it is in), or with
// --drain until a step finds nothing due: the shape for cron jobs and tests.
#include <atomic>
#include <csignal>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "idem/store.h"
#include "idem/store_access.h"
#include "json_out.h"
#include "ops/outbox/relay.h"

namespace idem::cli {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void OnStopSignal(int) { g_stop.store(true); }

struct RelayArgs {
  std::string store_url;
  std::string broker;
  bool drain = false;
  bool json = false;
  int64_t poll_ms = 500;
  outbox::RelayOptions options;
};

std::unique_ptr<Store> OpenStoreOrDie(const std::string& url, StoreAccess access) {
  auto store = OpenStore(url, Env::Default(), access);
  if (!store.ok()) throw CliError("cannot open store '" + RedactUrl(url) + "': " + store.status().ToString());
  return std::move(*store);
}

void RunRelay(const RelayArgs& a) {
  auto store = OpenStoreOrDie(a.store_url, StoreAccess::kCreate);
  auto broker = OpenQueueOrDie(a.broker, QueueAccess::kCreate);
  outbox::Relay relay(*store, broker->publisher(), a.options);
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
  Env& env = *Env::Default();
  outbox::RelayStep total;
  while (!g_stop.load()) {
    auto step = relay.RelayOnce(env.NowMs());
    if (!step.ok())
      throw CliError("outbox relay step failed after " + std::to_string(total.published) +
                     " messages were published (claimed rows are due again after --claim-ms; run the relay again): " +
                     step.status().ToString());
    total.claimed += step->claimed;
    total.published += step->published;
    total.failed += step->failed;
    total.dead += step->dead;
    total.cleaned += step->cleaned;
    if (step->claimed == 0) {
      if (a.drain) break;
      env.SleepMs(a.poll_ms);
    }
  }
  auto stats = outbox::ReadOutboxStats(*store);
  if (!stats.ok()) throw CliError("cannot read the outbox: " + stats.status().ToString());
  if (a.json) {
    std::cout << DumpLine({{"published", total.published},
                           {"failed", total.failed},
                           {"dead", total.dead},
                           {"cleaned", total.cleaned},
                           {"pending", stats->pending},
                           {"dead_total", stats->dead}})
              << "\n";
    return;
  }
  std::cout << "published " << total.published << ", failed " << total.failed << " (retried later), dead "
            << total.dead << ", cleaned " << total.cleaned << "; pending now " << stats->pending << ", dead in total "
            << stats->dead;
  if (stats->dead) std::cout << " (see: SELECT message_id, last_error FROM idem_outbox WHERE state = 'DEAD')";
  std::cout << "\n";
}

}  // namespace

void AddOutboxCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("outbox", "Publish the transactional outbox (messages handlers emitted)");
  cmd->require_subcommand(1);
  auto a = std::make_shared<RelayArgs>();
  auto* relay = cmd->add_subcommand("relay",
                                    "Publish due outbox rows through the broker; a row is marked sent only after\n"
                                    "the broker confirmed it, so a crash publishes it again (same key), never loses it.");
  AddStoreOption(relay, &a->store_url, "The store the handlers write to (sqlite:PATH, postgresql://…)")->required();
  AddBrokerOption(relay, &a->broker, "Queue file or broker URL to publish to")->required();
  relay->add_flag("--drain", a->drain, "Stop once nothing is due instead of running until SIGINT/SIGTERM");
  relay->add_option("--poll-ms", a->poll_ms, "Wait between steps that found nothing due (default 500)")
      ->check(CLI::Range(int64_t{1}, int64_t{60'000}));
  relay->add_option("--batch", a->options.batch_size, "Rows claimed and published per step (default 100)")
      ->check(CLI::Range(int64_t{1}, int64_t{10'000}));
  relay->add_option("--max-attempts", a->options.max_attempts, "Publish attempts before a row is DEAD (default 10)")
      ->check(CLI::Range(1, 1'000));
  relay->add_option("--claim-ms", a->options.claim_ms,
                    "A claimed row is due again after this if never marked (default 30000)")
      ->check(CLI::Range(int64_t{1}, int64_t{86'400'000}));
  relay->add_flag("--per-key-order", a->options.per_key_order,
                  "Publish each business key's rows in emission order: a row waits until every earlier\n"
                  "row of its key is sent or dead (one stuck row holds its key back)");
  relay->add_flag("--json", a->json, "Print one JSON object with the totals");
  relay->callback([a] { RunRelay(*a); });

  auto stats_url = std::make_shared<std::string>();
  auto stats_json = std::make_shared<bool>(false);
  auto* stats = cmd->add_subcommand("stats", "Outbox rows by state: pending (and the oldest), sent, dead");
  AddStoreOption(stats, stats_url.get(), "The store the handlers write to")->required();
  stats->add_flag("--json", *stats_json, "Print one JSON object");
  stats->callback([stats_url, stats_json] {
    auto store = OpenStoreOrDie(*stats_url, StoreAccess::kExisting);  // stats create nothing
    auto s = outbox::ReadOutboxStats(*store);
    if (!s.ok()) throw CliError("cannot read the outbox: " + s.status().ToString());
    if (*stats_json) {
      std::cout << DumpLine({{"pending", s->pending},
                             {"oldest_pending_ms", s->oldest_pending_ms},
                             {"sent", s->sent},
                             {"dead", s->dead}})
                << "\n";
      return;
    }
    std::cout << "pending  " << s->pending << "   (oldest emitted " << FormatTimeMs(s->oldest_pending_ms) << ")\n"
              << "sent     " << s->sent << "   (kept until cleanup)\n"
              << "dead     " << s->dead << "\n";
  });
}

}  // namespace idem::cli
