// idem queue stats: how much is ready, delayed, in flight and dead. Read-only:
// a queue that does not exist is an error (exit 1), never created, so a
// monitoring probe with a mistyped --broker fails instead of reporting 0.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "json_out.h"
#ifdef IDEM_WITH_KAFKA
#include "idem/kafka.h"
#endif

namespace idem::cli {
namespace {

// Kafka: the lag of every partition (main, retry and dead-letter topics) too.
void AddPartitionLag(const std::string& url, bool json, nlohmann::json* j) {
#ifdef IDEM_WITH_KAFKA
  if (url.rfind("kafka://", 0) != 0) return;
  auto lag = KafkaLag(url);
  if (!lag.ok()) throw CliError("cannot read the partition offsets: " + lag.status().ToString());
  if (json) {
    for (const KafkaPartitionLag& l : *lag)
      (*j)["partitions"].push_back({{"topic", l.topic}, {"partition", l.partition}, {"low", l.low},
                                    {"high", l.high}, {"committed", l.committed}, {"lag", l.lag}});
    return;
  }
  std::cout << "\nlag per partition (committed offset of the group → end of the log):\n";
  for (const KafkaPartitionLag& l : *lag)
    std::cout << "  " << l.topic << "/" << l.partition << "  lag " << l.lag << "  (committed "
              << (l.committed < 0 ? std::string("none") : std::to_string(l.committed)) << ", end " << l.high
              << ")\n";
#endif
}

}  // namespace

void AddQueueCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("queue", "Inspect the embedded queue");
  cmd->require_subcommand(1);
  auto path = std::make_shared<std::string>();
  auto json_out = std::make_shared<bool>(false);
  auto* stats = cmd->add_subcommand("stats",
                                    "Counts of ready, delayed, in-flight and dead messages.\n"
                                    "The queue must exist (this command creates nothing).");
  AddBrokerOption(stats, path.get(), "Queue file or broker URL")->required();
  stats->add_flag("--json", *json_out, "Print one JSON object (-1: the broker cannot tell)");
  stats->callback([path, json_out] {
    auto q = OpenQueueOrDie(*path, QueueAccess::kExisting);
    auto s = q->Stats();
    if (!s.ok()) throw CliError("cannot read queue stats: " + s.status().ToString());
    if (*json_out) {
      nlohmann::json j{{"ready", s->ready},
                       {"delayed", s->delayed},
                       {"in_flight", s->in_flight},
                       {"dead", s->dead},
                       {"oldest_dead_ms", s->oldest_dead_ms},
                       {"oldest_dead", FormatTimeMs(s->oldest_dead_ms)}};
      AddPartitionLag(*path, true, &j);
      std::cout << DumpLine(j) << "\n";
      return;
    }
    std::cout << "ready      " << s->ready << "\n"
              << "delayed    " << s->delayed << "\n"
              << "in flight  " << s->in_flight << "\n"
              << "dead       " << s->dead;
    if (s->dead) std::cout << "   (oldest failed " << FormatTimeMs(s->oldest_dead_ms) << "; see: idem dlq list --broker " << RedactUrl(*path) << ")";
    std::cout << "\n";
    AddPartitionLag(*path, false, nullptr);
  });
}

}  // namespace idem::cli
