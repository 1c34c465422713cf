#include "harness/report_markdown.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "harness/bench_goals.h"
#include "harness/report_format.h"

namespace idem::bench {
namespace {

std::string Ms(double v) { return v >= 10 ? Fixed(v, 1) : Fixed(v, 2); }

std::string Verdict(double ratio, double target) {
  if (ratio <= 0) return "no figure (a run failed)";
  return Fixed(ratio, 2) + " × — " + (ratio >= target ? "**meets**" : "**misses**") + " the target of ≥ " +
         Fixed(target, 2) + " ×";
}

// Bytes written are the SQLite journal only for the bench's own SQLite files;
// for a server store they would be the client's socket traffic, if anything.
std::string JournalKiB(const RunResult& r) {
  // An idem-run run is timed from outside its consumer: nothing of its writes is counted.
  if (r.spec.store != "sqlite" || r.messages == 0 || r.spec.role == Role::kService) return "—";
  return Fixed(static_cast<double>(r.bytes_written) / 1024.0 / static_cast<double>(r.messages), 2);
}

void Header(std::ostringstream& md, const BenchOutcome& b, const std::string& command) {
  const MachineInfo& m = b.machine;
  md << "# idem bench\n\n"
     << "Written by `" << command << "` at " << m.started_utc << " — a " << (b.options.quick ? "quick" : "full")
     << " run of " << Fixed(b.total_seconds, 0) << " s. Run the same command to reproduce it.\n\n"
     << "Machine: " << m.cores << " × " << m.cpu_model << ", " << m.kernel << "; SQLite " << m.sqlite_version
     << " files on " << m.work_dir_filesystem << ". Load average (1 min) " << Fixed(m.load_before.one, 2)
     << " before and " << Fixed(m.load_after.one, 2) << " after the run";
  if (std::max(m.load_before.one, m.load_after.one) > 0.5 * m.cores)
    md << " — **other work was running**: the absolute numbers are noisy; the ratios, taken minutes apart on the "
          "same machine, less so";
  md << ". A 4 KiB write + fdatasync in the work folder took " << Ms(m.fsync_ms_before) << " ms (median) before "
     << "and " << Ms(m.fsync_ms_after) << " ms after: naive pays about one of those a message, idem one a batch, so "
     << "on SQLite idem / naive follows the disk's flush latency more than anything idem does.\n\n";
  for (const StoreTarget& t : b.stores) {
    md << "Store **" << t.label << "**: " << t.durability;
    if (t.durability.find("fsync=off") != std::string::npos)
      md << " — **fsync is off**, so a commit costs no disk flush and naive's figure is flattered; measure against "
            "a server with fsync on";
    if (t.durability.find("innodb_flush_log_at_trx_commit=") != std::string::npos &&
        t.durability.find("innodb_flush_log_at_trx_commit=1") == std::string::npos)
      md << " — **commits are not flushed** (the redo log is written out on a timer), so naive's figure is "
            "flattered; measure against a server with innodb_flush_log_at_trx_commit=1";
    md << ".\n";
  }
  md << "\n";
  if (b.all_exactly_once) {
    md << "Every one of the " << b.runs.size()
       << " runs was checked from the database afterwards and found **exactly once** (see *Checks* below).\n\n";
  } else {
    md << "**Some runs failed or were not exactly once; their figures are left out of the ratios:**\n\n";
    for (const RunResult& r : b.runs)
      if (!r.ok) md << "- " << r.spec.name << ": " << r.error << "\n";
    md << "\n";
  }
}

// naive and idem at B=1 are one configuration measured twice, minutes apart:
// how far apart they land is this machine's noise, in the report's own units.
void Noise(std::ostringstream& md, const BenchOutcome& b) {
  for (const StoreSummary& s : b.summaries) {
    const double a = s.naive_per_s, c = SweepPoint(b, s.target.label, Variant::kIdem, 1);
    if (a <= 0 || c <= 0) continue;
    const double spread = std::abs(a - c) / std::max(a, c) * 100;
    md << "Noise check (" << s.target.label << "): naive and idem at B=1 are the same configuration, measured "
       << "twice: " << Rate(a) << " and " << Rate(c) << " msg/s, " << Fixed(spread, 0) << " % apart"
       << (spread > 15 ? " — read every figure of this store with that margin" : "") << ".\n\n";
  }
}

void Headline(std::ostringstream& md, const BenchOutcome& b) {
  md << "## Headline\n\n"
     << "| store | idem msg/s (B=" << b.options.batch_size
     << ") | naive msg/s | ceiling msg/s | idem / naive | idem / ceiling |\n"
     << "|---|---:|---:|---:|---:|---:|\n";
  for (const StoreSummary& s : b.summaries)
    md << "| " << s.target.label << " | " << Rate(s.idem_per_s) << " | " << Rate(s.naive_per_s) << " | "
       << Rate(s.ceiling_per_s) << " | " << Fixed(s.idem_over_naive, 2) << " | " << Fixed(s.idem_over_ceiling, 2)
       << " |\n";
  if (b.options.compare_pairs > 1)
    md << "\nidem and ceiling are the medians of " << b.options.compare_pairs
       << " alternated pairs of runs, idem / ceiling the median of the pairs' ratios (see *idem against the "
          "ceiling, pair by pair*); naive is one run, and idem / naive is idem's median over it.\n\n";
  else
    md << "\nidem and ceiling are one run each here (`--compare-pairs N` alternates N pairs and takes their "
          "medians); naive is one run.\n\n";
}

// The compare runs pair by pair: idem and the ceiling alternate (idem,
// ceiling, idem, …) so that a server's drift between runs — vacuuming the last
// run's rows, a checkpoint — falls on both sides instead of on one.
void ComparePairsTable(std::ostringstream& md, const BenchOutcome& b) {
  md << "## idem against the ceiling, pair by pair\n\n"
     << "On each store the compare runs (B=" << b.options.batch_size << ", sequential keys, empty tables) alternate "
        "idem, ceiling, idem, ceiling, …, " << b.options.compare_pairs << " pair(s), so each pair sees the same "
        "state of the machine and the server. The headline figures are the medians: idem's and the ceiling's of "
        "their runs, idem / ceiling of the pairs' ratios, with the lowest and highest in brackets.\n\n"
     << "| store | pair | idem msg/s | ceiling msg/s | idem / ceiling |\n|---|---|---:|---:|---:|\n";
  for (const StoreSummary& s : b.summaries) {
    const RunPairs pairs = ComparePairs(b, s.target.label);
    for (size_t i = 0; i < pairs.size(); ++i) {
      const auto& [idem, ceiling] = pairs[i];
      if (!idem && !ceiling) continue;
      const double iv = idem && idem->ok ? idem->msgs_per_s : 0, cv = ceiling && ceiling->ok ? ceiling->msgs_per_s : 0;
      md << "| " << s.target.label << " | " << i + 1 << " | " << Rate(iv) << " | " << Rate(cv) << " | "
         << (iv > 0 && cv > 0 ? Fixed(iv / cv, 2) : "—") << " |\n";
    }
    md << "| " << s.target.label << " | **median** | ";
    if (s.compare_pairs == 0) {
      md << Rate(s.idem_per_s) << " | " << Rate(s.ceiling_per_s) << " | no figure (no pair where both passed) |\n";
      continue;
    }
    md << Rate(s.idem_per_s) << " (" << Rate(s.idem_min) << "–" << Rate(s.idem_max) << ") | " << Rate(s.ceiling_per_s)
       << " (" << Rate(s.ceiling_min) << "–" << Rate(s.ceiling_max) << ") | " << Fixed(s.idem_over_ceiling, 2) << " ("
       << Fixed(s.idem_over_ceiling_min, 2) << "–" << Fixed(s.idem_over_ceiling_max, 2) << ") |\n";
  }
  md << "\n";
}

void GoalsTable(std::ostringstream& md, const BenchOutcome& b) {
  const std::vector<GoalRow> rows = EvaluateGoals(b);
  md << "## Goals\n\n";
  if (rows.empty()) {
    md << "*No goal has its inputs in this run.*\n\n";
    return;
  }
  md << "| path | this run | goal | |\n|---|---|---|---|\n";
  for (const GoalRow& r : rows) {
    const std::string state = GoalStateName(r.state);
    md << "| " << r.goal.path << " | " << (r.state == GoalState::kNotMeasured ? "— (" + r.shown + ")" : r.shown)
       << " | " << BoundText(r.goal) << " | " << (r.state == GoalState::kNotMeasured ? state : "**" + state + "**")
       << " |\n";
  }
  md << "\nA row of several stores, brokers or queues is judged by its lowest figure. A goal with no inputs in "
        "this run (no `--store` of that kind, a part left out) is *not measured*, which is not *missed*. "
        "PostgreSQL and MariaDB count only when the server flushes every commit. idem / raw, end to end, is in its "
        "own section: informative, it is bounded by what the payments handler's writes cost.\n\n";
}

void EndToEnd(std::ostringstream& md, const BenchOutcome& b) {
  if (b.end_to_end.empty()) return;
  md << "## End to end: idem on a real broker against the ceiling and the broker's raw loop\n\n"
     << "The same messages (the workload below; the count per run is in the table) are published to the broker "
     << "before the clock starts, then consumed: by **idem** (the pipeline, batch " << b.options.batch_size
     << ", the payments handler, a fresh SQLite store, checked exactly once afterwards), by the **ceiling** (the "
        "same source, store, handler, batches and seeding with the guard off and the oracle skipping the copies, "
        "checked the same way: what the guard costs on this broker) or by the broker's **raw** loop (poll a batch, "
        "acknowledge it: no store, no guard, no effects — the most any consumer of that broker could do). The runs "
        "alternate (raw, ceiling, idem, raw, …), "
     << b.options.e2e_pairs << " round(s) per broker, so each round sees the same machine; each ratio is the median "
        "of the rounds' ratios, with the lowest and highest round.\n\n"
     << "| broker | messages per run | idem msg/s (median, range) | ceiling msg/s (median, range) | raw msg/s "
        "(median, range) | idem / ceiling (median, range) | idem / raw (median, range) | goal (idem / ceiling) |\n"
     << "|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const EndToEndSummary& e : b.end_to_end) {
    md << "| " << e.broker.label << " | " << Int(e.messages) << " | ";
    if (e.pairs == 0) {
      md << "— | — | — | — | — | no figure (a run failed) |\n";
      continue;
    }
    md << Rate(e.idem_per_s) << " (" << Rate(e.idem_min) << "–" << Rate(e.idem_max) << ") | "
       << Rate(e.ceiling_per_s) << " (" << Rate(e.ceiling_min) << "–" << Rate(e.ceiling_max) << ") | "
       << Rate(e.raw_per_s) << " (" << Rate(e.raw_min) << "–" << Rate(e.raw_max) << ") | "
       << Fixed(e.over_ceiling, 2) << " (" << Fixed(e.over_ceiling_min, 2) << "–" << Fixed(e.over_ceiling_max, 2)
       << ") | " << Fixed(e.ratio, 2) << " (" << Fixed(e.ratio_min, 2) << "–" << Fixed(e.ratio_max, 2) << ") | "
       << Verdict(e.over_ceiling, GoalOf(GoalId::kEndToEndEachBroker).threshold) << " |\n";
  }
  md << "\n*embedded*: the queue in a file of its own (`idem demo`'s layout); *embedded-in-store*: the queue in the "
        "store's own SQLite file, where idem (and the ceiling) write the acknowledgements in the store's "
        "transaction (one commit per batch). The raw loop of both is the same queue on its own. The raw loop "
        "writes no effects, so idem / raw is bounded by what the payments handler's writes cost; idem / ceiling "
        "is the guard's own share.";
  for (const EndToEndSummary& e : b.end_to_end)
    if (e.broker.label == "kafka-mock")
      md << " *kafka-mock*: the in-process mock cluster, at most " << Int(e.messages)
         << " messages a run (it delivers about a thousand a second to any consumer).";
  md << "\n\n";
}

// `idem run` against the library's pipeline on the same queue and store.
void ServiceRuns(std::ostringstream& md, const BenchOutcome& b) {
  if (b.service.empty()) return;
  md << "## `idem run` against the library's pipeline\n\n"
     << "The same messages (the workload below, " << Int(b.options.e2e_messages) << " a run) are published to an "
        "embedded queue before anything consumes them, then consumed into a fresh SQLite store (the same seeding) "
        "either by the **library**'s pipeline in the bench's process (batch " << b.options.batch_size
     << ", the payments service's pay.success handler) or by **`idem run`**, a process of its own started with a "
        "generated configuration naming the same queue, store, group and batch size and the `payments` handler set "
        "(the same pay.success handler; the product's defaults otherwise, its JSON log to a file) "
        "and `--until-idle`. Both are timed by the same outside watch of the queue, a read every 2 ms: from the "
        "first batch gone from the queue to the last, so neither side's start-up or shutdown counts, and msg/s "
        "counts the messages still queued at the first. Every run is checked exactly once from the database "
        "afterwards (and the queue empty); the library's run also from its own counts. The runs alternate "
        "(library, idem run, …), " << b.options.e2e_pairs << " round(s) per queue; each ratio is the median of the "
        "rounds' ratios.\n\n"
     << "| queue | library msg/s (median, range) | idem run msg/s (median, range) | idem run / library (median, "
        "range) | goal | idem run without the decision log: msg/s, / library |\n|---|---:|---:|---:|---|---|\n";
  for (const ServiceSummary& s : b.service) {
    md << "| " << s.broker.label << " | ";
    if (s.pairs == 0) {
      md << "— | — | — | no figure (a run failed) | — |\n";
      continue;
    }
    md << Rate(s.library_per_s) << " (" << Rate(s.library_min) << "–" << Rate(s.library_max) << ") | "
       << Rate(s.service_per_s) << " (" << Rate(s.service_min) << "–" << Rate(s.service_max) << ") | "
       << Fixed(s.ratio, 2) << " (" << Fixed(s.ratio_min, 2) << "–" << Fixed(s.ratio_max, 2) << ") | "
       << Verdict(s.ratio, GoalOf(GoalId::kServiceOverLibrary).threshold) << " | "
       << (s.quiet_pairs > 0 ? Rate(s.quiet_per_s) + " (" + Rate(s.quiet_min) + "–" + Rate(s.quiet_max) + "), " +
                                   Fixed(s.quiet_ratio, 2) + " (" + Fixed(s.quiet_ratio_min, 2) + "–" +
                                   Fixed(s.quiet_ratio_max, 2) + ")"
                             : std::string("not run"))
       << " |\n";
  }
  md << "\nThe goal is judged on `idem run` as it ships (a JSON log line per message outcome, `[service] "
        "log_decisions = true`); on the queue in the store's file each round also runs it with `log_decisions = "
        "false`, to show how much of the difference that line is.\n\n*embedded-in-store*: the queue in the store's own SQLite file, where an acknowledgement can be written "
        "in the store's transaction (one commit per batch); *embedded*: the queue in a file of its own.\n\n";
}

// Several workers on one server store: how the rate scales from one worker,
// and what the contention costs in transactions run again.
void Workers(std::ostringstream& md, const BenchOutcome& b) {
  if (b.workers.empty()) return;
  md << "## Several workers\n\n"
     << "One payments stream (the workload below, its copies included) dealt round robin to N workers, each a "
        "pipeline (batch " << b.options.batch_size << ") with its own connection, so copies of one payment meet in "
        "different workers and their batches contend for the same records, orders and accounts. No Redis filter. "
        "Each run's message count is what idem alone settled in about ten seconds on that store; every run is "
        "checked from the ledger afterwards.\n\n"
     << "| store | workers | msg/s | scaling vs 1 worker | transaction reruns | exactly once |\n"
     << "|---|---:|---:|---:|---:|---|\n";
  for (const WorkersResult& w : b.workers) {
    const double scaling = ScalingVsOneWorker(b, w);
    md << "| " << w.spec.store_label << " | " << w.spec.workers << " | " << Rate(w.ok ? w.msgs_per_s : 0) << " | "
       << (scaling > 0 ? Fixed(scaling, 2) + " ×" : "—") << " | " << Int(w.transaction_retries)
       << " | " << (w.ok ? "yes (" + Int(w.ledger_rows) + " payments, " + Int(w.messages) + " messages)"
                         : "**no**: " + w.error)
       << " |\n";
  }
  md << "\nA rerun is a batch transaction run again from the start after a deadlock or a serialization failure "
        "(the store rolled it back whole).\n\n";
}

// Which way one filter case went, in words.
std::string FilterVerdict(const FilterSummary& f) {
  if (f.pairs == 0) return "no figure (a run failed)";
  const double change = (f.ratio - 1) * 100;
  if (f.ratio_min < 0.95 && f.ratio_max > 1.05)
    return "went no clear way (one pair " + Fixed(f.ratio_min, 2) + " ×, another " + Fixed(f.ratio_max, 2) + " ×)";
  if (std::abs(change) < 5) return "made no clear difference (" + Fixed(f.ratio, 2) + " ×)";
  return std::string(change > 0 ? "made idem faster" : "made idem slower") + " (" + Fixed(f.ratio, 2) + " ×)";
}

// The Redis filter where it should help (a duplicate storm: most copies stop
// before the database) and where it may not (the normal share of copies: one
// more round trip a batch for few copies saved).
void Filter(std::ostringstream& md, const BenchOutcome& b) {
  if (b.filter.empty()) return;
  md << "## The Redis fast filter\n\n"
     << "idem B=" << b.options.batch_size << " on each server store without and with the Redis filter in front, at "
     << Fixed(b.options.duplicate_ratio * 100, 0) << " % copies and in a duplicate storm ("
     << Fixed(kStormDuplicates * 100, 0) << " % copies). Runs alternate (without, with, without, with, …), "
     << b.options.filter_pairs << " pair(s) per case; figures are medians, the ratio is the median of the pairs' "
        "ratios with the lowest and highest pair. Every other table measures without the filter, the product's "
        "default.\n\n"
     << "| store | copies | without msg/s | with msg/s | with / without (range) | stopped by the filter |\n"
     << "|---|---:|---:|---:|---:|---:|\n";
  for (const FilterSummary& f : b.filter) {
    md << "| " << f.store << " | " << Fixed(f.duplicate_ratio * 100, 0) << " % | ";
    if (f.pairs == 0) {
      md << "— | — | — | — |\n";
      continue;
    }
    md << Rate(f.without_per_s) << " | " << Rate(f.with_per_s) << " | " << Fixed(f.ratio, 2) << " ("
       << Fixed(f.ratio_min, 2) << "–" << Fixed(f.ratio_max, 2) << ") | " << Fixed(f.filtered_share * 100, 0)
       << " % of messages |\n";
  }
  md << "\n";
  std::string store;
  for (const FilterSummary& f : b.filter) {
    const bool storm = f.duplicate_ratio == kStormDuplicates;
    if (f.store != store) md << (store.empty() ? "" : ". ") << "On " << f.store << " the filter ";
    else md << "; ";
    store = f.store;
    md << FilterVerdict(f) << (storm ? " in the duplicate storm" : " at " + Fixed(f.duplicate_ratio * 100, 0) +
                                                                       " % copies");
  }
  md << ". A change under 5 % is within this machine's noise.\n\n";
}

void Meaning(std::ostringstream& md, const BenchOutcome& b) {
  const int dup = static_cast<int>(b.options.duplicate_ratio * 100 + 0.5);
  md << "## What each number means\n\n"
     << "- **Workload**: the payments service's own `pay.success` handler (`examples/payments`): order WAIT_PAY → "
        "PAID (state-machine CAS), a PAY_DEDUCT ledger row, a conditional balance deduction, the bank confirm (an "
        "in-process stand-in that answers at once), points once, a notice once. "
     << dup << " % of the messages are copies of a payment up to " << Int(kCopyWindow)
     << " payments earlier — half redelivered under the same message id, half resent under a new one. One order "
        "per payment and " << Int(kAccounts) << " accounts are written before the clock starts.\n"
     << "- **Variants** — all three are the same `idem::Pipeline` over the same source, store and handler:\n"
     << "  - **idem**: batch of B messages, one transaction per batch, the consumption records claimed in one "
        "statement, a savepoint per message.\n"
     << "  - **naive**: the same guard one message at a time (batch size 1): one poll, one transaction, one commit "
        "and one ack per message — the consumer of the source documents done correctly, the way most teams write "
        "it. None of the three has the Redis filter in front (its own section measures it).\n"
     << "  - **ceiling**: batch of B with the guard off (no records, no claims) and an oracle that skips the "
        "copies the generator marked, so exactly the same unique effects are written in the same batches. "
        "Key derivation and fingerprints still run (they are part of the pipeline, a few µs per message: see the "
        "micro-benchmarks). idem / ceiling is therefore what the guard costs: writing the records, and finding and "
        "counting every copy, which the oracle gets for free.\n"
     << "- **Source**: an in-memory source, the same for every variant. A queue file (the embedded queue) would "
        "add its own poll and settle transactions, and their fsyncs, to every variant alike, hiding the "
        "consumer's overhead instead of measuring it. Messages are generated one at a time from a seed, so memory "
        "does not grow with the run and every variant sees the same messages in the same order.\n"
     << "- **Store**: SQLite with the product defaults (WAL, `synchronous=FULL`: every commit is fsynced), a fresh "
        "file per run; each server store as its header line above says. On a server store the paced latency runs "
        "are left out and the history holds "
     << Int(b.options.server_history) << " payments.\n"
     << "- **Throughput** (msg/s): messages acknowledged ÷ time, copies included, with a backlog all the time "
        "(saturated). Each run stops after " << Int(b.options.messages) << " messages or at the first batch after "
     << Fixed(b.options.max_seconds, 1) << " s.\n"
     << "- **Latency** (ms): publish → commit and ack of each message, measured with a producer thread publishing "
        "at a fixed offered rate below saturation for " << Fixed(b.options.paced_seconds, 1)
     << " s while the consumer runs. A pre-filled backlog would measure queueing, not latency, so throughput and "
        "latency come from different runs. The *common* rate is 40 % of what one message per transaction sustained "
        "(the slower of naive and idem at B=1, which are the same configuration), so all three variants are "
        "compared at a load each sustains; the *high* rate is half of idem's throughput, where naive cannot keep "
        "up at all. A run that still needed more than a tenth of its length to settle after the last publish is "
        "marked *overloaded*: its times measure a queue.\n"
     << "- **Memory**: each run is a forked child process; *peak RSS* is its `getrusage` high-water mark, and RSS "
        "is sampled during the run.\n"
     << "- **Checks** (every run, before its numbers count): from the database, ledger rows, PAID orders, points "
        "and notices = payments, no payment charged twice, money taken = the sum of the unique payments, "
        "SUCCEEDED records = payments (guarded variants); from the run, the payments handler ran exactly once per "
        "unique payment (so the guard, not the handler's own business checks, stopped every copy), every message "
        "acknowledged, FIRST = unique and DUPLICATE = copies.\n\n";
}

void Latency(std::ostringstream& md, const BenchOutcome& b) {
  md << "## Latency, publish → commit (paced)\n\n"
     << "| store | offered rate | variant | p50 ms | p90 ms | p99 ms | max ms | messages |\n"
     << "|---|---:|---|---:|---:|---:|---:|---:|\n";
  for (const RunResult& r : b.runs) {
    if (r.spec.phase != Phase::kPaced) continue;
    md << "| " << r.spec.store_label << " | " << Rate(r.spec.rate_per_s) << " msg/s ("
       << (r.spec.role == Role::kLatencyCommon ? "common" : "high") << ") | " << VariantName(r.spec.variant)
       << (r.spec.variant == Variant::kNaive ? "" : " B=" + std::to_string(r.spec.batch_size)) << " | ";
    if (r.ok && r.overloaded)
      md << Ms(r.latency.p50_ms) << " | " << Ms(r.latency.p90_ms) << " | " << Ms(r.latency.p99_ms) << " | "
         << Ms(r.latency.max_ms) << " | " << Int(r.latency.samples) << " — **overloaded**: it needed "
         << Fixed(r.drain_seconds, 1) << " s after the last publish, so these times are a growing queue |\n";
    else if (r.ok)
      md << Ms(r.latency.p50_ms) << " | " << Ms(r.latency.p90_ms) << " | " << Ms(r.latency.p99_ms) << " | "
         << Ms(r.latency.max_ms) << " | " << Int(r.latency.samples) << " |\n";
    else
      md << "— | — | — | — | failed: " << r.error << " |\n";
  }
  md << "\nAt a low rate idem's batches are small (a poll returns what has arrived), so its latency is close to "
        "one transaction's; at the high rate batching keeps the commit rate — and so the fsync rate — bounded.\n\n";
}

void Sweep(std::ostringstream& md, const BenchOutcome& b, const std::string& plot_file) {
  md << "## Throughput against batch size\n\n";
  if (!plot_file.empty()) md << "![throughput against batch size](" << plot_file << ")\n\n";
  else md << "*No plot: " << b.plot_note << "*\n\n";
  md << "| store | variant |";
  for (size_t batch : b.options.sweep) md << " B=" << Int(static_cast<int64_t>(batch)) << " |";
  md << "\n|---|---|";
  for (size_t i = 0; i < b.options.sweep.size(); ++i) md << "---:|";
  md << "\n";
  for (const StoreSummary& s : b.summaries) {
    for (Variant v : {Variant::kIdem, Variant::kCeiling}) {
      md << "| " << s.target.label << " | " << VariantName(v) << " |";
      for (size_t batch : b.options.sweep) md << " " << Rate(SweepPoint(b, s.target.label, v, batch)) << " |";
      md << "\n";
    }
    md << "| " << s.target.label << " | idem / ceiling |";
    for (size_t batch : b.options.sweep) {
      const double i = SweepPoint(b, s.target.label, Variant::kIdem, batch);
      const double c = SweepPoint(b, s.target.label, Variant::kCeiling, batch);
      md << " " << (i > 0 && c > 0 ? Fixed(i / c, 2) : "—") << " |";
    }
    md << "\n";
  }
  md << "\nnaive is idem at B=1 by construction; its own figure is in the headline table.\n\n";
}

void TableShape(std::ostringstream& md, const BenchOutcome& b) {
  md << "## Table size and key order (B=" << b.options.batch_size << ")\n\n"
     << "| store | case | idem msg/s | ceiling msg/s | idem / ceiling |\n|---|---|---:|---:|---:|\n";
  for (const StoreSummary& s : b.summaries) {
    struct Case {
      Role role;
      std::string what;
    };
    for (const Case& c : {Case{Role::kCompare, "empty tables, sequential keys"},
                          Case{Role::kRandomKeys, "empty tables, random keys"},
                          Case{Role::kHistory, Int(b.options.history) +
                                                   " payments (and records) already in the tables, sequential keys"},
                          Case{Role::kNoCopies, "empty tables, sequential keys, no copies at all"}}) {
      const RunResult* i = FindRun(b, s.target.label, c.role, Variant::kIdem, b.options.batch_size);
      const RunResult* k = FindRun(b, s.target.label, c.role, Variant::kCeiling, b.options.batch_size);
      if (!i && !k) continue;
      double iv = i && i->ok ? i->msgs_per_s : 0, kv = k && k->ok ? k->msgs_per_s : 0;
      double ratio = iv > 0 && kv > 0 ? iv / kv : 0;
      std::string what = c.what;
      if (c.role == Role::kCompare) {  // the medians of the pairs, as in the headline
        iv = s.idem_per_s;
        kv = s.ceiling_per_s;
        ratio = s.idem_over_ceiling;
        what += " (medians of the pairs)";
      }
      md << "| " << s.target.label << " | " << what << " | " << Rate(iv) << " | " << Rate(kv) << " | "
         << (ratio > 0 ? Fixed(ratio, 2) : "—") << " |\n";
    }
  }
  md << "\nRandom keys land all over the records' primary-key index (and the ledger's unique index) instead of "
        "appending at its end; a full table makes every claim a lookup in a deeper index.\n\n";
}

// Per message: wall time, CPU in user space and in the kernel, bytes written.
// Tells whether idem's overhead is computation or journal traffic.
void Overhead(std::ostringstream& md, const BenchOutcome& b) {
  md << "## Where idem's overhead goes (B=" << b.options.batch_size << ")\n\n"
     << "| run | wall µs / msg | CPU user µs / msg | CPU kernel µs / msg | SQLite journal KiB / msg |\n"
     << "|---|---:|---:|---:|---:|\n";
  for (const RunResult& r : b.runs) {
    if (!r.ok || r.messages == 0 || (r.spec.role != Role::kCompare && r.spec.role != Role::kNoCopies)) continue;
    const double n = static_cast<double>(r.messages);
    md << "| " << r.spec.name << " | " << Fixed(r.seconds * 1e6 / n, 1) << " | " << Fixed(r.cpu_user_s * 1e6 / n, 1)
       << " | " << Fixed(r.cpu_system_s * 1e6 / n, 1) << " | " << JournalKiB(r) << " |\n";
  }
  md << "\nThe ceiling pays nothing for a copy (its oracle skips it before the database); idem must find every copy "
        "— in the batch, or through its record — and counts it on that record (a touch among the batch's record writes: an UPDATE of an "
        "older row, which also moves its entry in the `last_seen_ms` index). The *no-copies* pair shows what the "
        "records cost on their own. Wall time above CPU time is waiting: for fsync, and on a server store for the "
        "round trip of every statement (the payments handler issues about a dozen a message, savepoints "
        "included, and batching saves the commits, not those).\n\n";
}

void Memory(std::ostringstream& md, const BenchOutcome& b) {
  md << "## Memory\n\n| run | messages | RSS at start | RSS at end | peak RSS |\n|---|---:|---:|---:|---:|\n";
  for (const RunResult& r : b.runs) {
    if (r.spec.role != Role::kCompare && r.spec.role != Role::kSoak) continue;
    const int64_t end = r.rss_kb_at.empty() ? 0 : r.rss_kb_at.back().second;
    md << "| " << r.spec.name << " | " << Int(r.messages) << " | " << MiB(r.rss_start_kb) << " | " << MiB(end)
       << " | " << MiB(r.peak_rss_kb) << " |\n";
  }
  const RunResult* soak = SoakRun(b);
  if (soak && soak->rss_kb_at.size() >= 2) {
    const auto& first = soak->rss_kb_at.front();
    const auto& last = soak->rss_kb_at.back();
    const double growth_kb = static_cast<double>(last.second - first.second);
    const double per_million = SoakGrowthMiBPerMillion(*soak).value_or(0);
    md << "\nSoak (" << Int(soak->messages) << " messages): RSS went from " << MiB(first.second) << " after "
       << Int(first.first) << " messages to " << MiB(last.second) << " after " << Int(last.first) << " — "
       << Fixed(growth_kb / 1024.0, 1) << " MiB, " << Fixed(per_million, 2)
       << " MiB per million messages. The goal is memory flat over 10 M messages; `idem bench --soak-messages "
          "10000000` measures that directly (it needs about as many seconds as 10 M ÷ the idem rate above).\n\n"
       << "| messages | RSS |\n|---:|---:|\n";
    for (const auto& [messages, kb] : soak->rss_kb_at) md << "| " << Int(messages) << " | " << MiB(kb) << " |\n";
  } else {
    md << "\nNo soak run in this mode (`--soak-messages N` adds one).\n";
  }
  md << "\n";
}

void Micro(std::ostringstream& md, const BenchOutcome& b) {
  md << "## Micro-benchmarks of the hot paths (Google Benchmark)\n\n";
  if (!b.micro_error.empty()) md << "*Failed: " << b.micro_error << "*\n\n";
  if (b.micro.empty()) {
    if (b.micro_error.empty()) md << "*Not run (`--micro-min-time` below 0).*\n\n";
    return;
  }
  md << "| benchmark | ns / iteration | items / s | bytes / s |\n|---|---:|---:|---:|\n";
  for (const MicroResult& m : b.micro)
    md << "| " << m.name << " | " << Rate(m.ns_per_op) << " | " << Rate(m.items_per_s) << " | "
       << (m.bytes_per_s > 0 ? MiB(static_cast<int64_t>(m.bytes_per_s / 1024)) : std::string("—")) << " |\n";
  md << "\n`BM_DeriveIdentity`: key and fingerprint of one pay.success payload. `BM_Fingerprint/N`: XXH3-128 of N "
        "bytes. `BM_InBatchDedup/N`: marking the copies in a batch of N. `BM_ClaimBatch/N`: one `Claim` of N new "
        "keys in an in-memory SQLite transaction (rolled back). The same benchmarks run alone as "
        "`build/bench/idem_micro_bench`.\n\n";
}

void AllRuns(std::ostringstream& md, const BenchOutcome& b) {
  md << "## Every run\n\n| run | role | messages | s | msg/s | p50 ms | p99 ms | SQLite journal KiB / msg | peak RSS | "
        "exactly once |\n"
     << "|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const RunResult& r : b.runs) {
    const bool paced = r.spec.phase == Phase::kPaced;
    md << "| " << r.spec.name << " | " << RoleName(r.spec.role) << " | " << Int(r.messages) << " | "
       << Fixed(r.seconds, 1) << " | " << (paced ? "(paced)" : Rate(r.msgs_per_s)) << " | "
       << (paced ? Ms(r.latency.p50_ms) : "") << " | " << (paced ? Ms(r.latency.p99_ms) : "") << " | "
       << JournalKiB(r) << " | " << MiB(r.peak_rss_kb) << " | "
       << (r.ok ? "yes (" + std::to_string(r.checks_passed.size()) + " checks)" : "**no**: " + r.error)
       << " |\n";
  }
  md << "\n";
}

bool AnyRun(const BenchOutcome& b, std::initializer_list<Role> roles) {
  for (const RunResult& r : b.runs)
    for (Role role : roles)
      if (r.spec.role == role) return true;
  return false;
}

}  // namespace

std::string RenderReport(const BenchOutcome& b, const std::string& plot_file, const std::string& command) {
  std::ostringstream md;
  Header(md, b, command);
  // A part left out (--part, --only) leaves its sections out rather than empty.
  const bool compared = AnyRun(b, {Role::kCompare});
  if (compared) Headline(md, b);
  GoalsTable(md, b);
  if (compared) ComparePairsTable(md, b);
  Noise(md, b);
  EndToEnd(md, b);
  ServiceRuns(md, b);
  Workers(md, b);
  Filter(md, b);
  Meaning(md, b);
  if (AnyRun(b, {Role::kLatencyCommon, Role::kLatencyHigh})) Latency(md, b);
  if (AnyRun(b, {Role::kCompare, Role::kSweep})) Sweep(md, b, plot_file);
  if (AnyRun(b, {Role::kCompare, Role::kRandomKeys, Role::kHistory, Role::kNoCopies})) {
    TableShape(md, b);
    Overhead(md, b);
  }
  if (AnyRun(b, {Role::kCompare, Role::kSoak})) Memory(md, b);
  Micro(md, b);
  AllRuns(md, b);
  md << "## Reproduce\n\n```sh\n"
     << "./scripts/bench.sh                          # builds, then the full run: bench/results/REPORT.md and the plot\n"
     << "build/apps/idem/idem bench --quick --json   # under a minute, every figure as JSON\n"
     << "build/apps/idem/idem bench --store postgresql://USER@HOST:PORT/SCRATCH_DB --redis-url redis://HOST:PORT\n"
     << "```\n";
  return md.str();
}

}  // namespace idem::bench
