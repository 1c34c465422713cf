// idem publish: JSON lines in, messages out. A line that cannot be a message is
// parked in the terminal queue with its reason — never silently dropped.
//
// Empty and whitespace-only lines are skipped, counted and named (line numbers
// on stderr, in the summary and in --json), not parked: they hold no bytes to
// keep or replay, and a dead letter for each stray newline would only set off
// the dead-letter alarm an operator watches for real failures.
#include <fstream>
#include <iostream>

#include "cli_checks.h"
#include "cli_util.h"
#include "idem/key.h"
#include "json_out.h"
#include "terminal_text.h"

namespace idem::cli {
namespace {

struct PublishArgs {
  std::string queue;
  std::string topic;
  std::string input = "-";
  std::string key;
  std::vector<std::string> key_fields;
  size_t max_payload_bytes = 1 << 20;
  int64_t delay_ms = 0;
  bool quiet = false;
  bool json = false;
};

struct Parked {
  int64_t line = 0;
  int64_t dead_letter_id = 0;
  std::string reason;
};

// "3, 7, 12" — the first few line numbers, then how many more.
std::string LineList(const std::vector<int64_t>& lines) {
  constexpr size_t kShown = 20;
  std::string out;
  for (size_t i = 0; i < lines.size() && i < kShown; ++i) out += (i ? ", " : "") + std::to_string(lines[i]);
  if (lines.size() > kShown) out += " and " + std::to_string(lines.size() - kShown) + " more";
  return out;
}

nlohmann::json Report(const PublishArgs& a, int64_t published, const std::vector<Parked>& parked,
                      const std::vector<int64_t>& skipped) {
  nlohmann::json dead = nlohmann::json::array();
  for (const Parked& p : parked)
    dead.push_back({{"line", p.line}, {"dead_letter_id", IdString(p.dead_letter_id)}, {"reason", p.reason}});
  return {{"topic", a.topic},       {"published", published},       {"parked", parked.size()},
          {"skipped", skipped.size()}, {"skipped_lines", skipped}, {"dead_letters", dead}};
}

// Why `line` cannot be published, or "" when it can. Fills the business key.
std::string Check(const PublishArgs& a, const std::string& line, std::string* key) {
  if (line.size() > a.max_payload_bytes)
    return "payload is " + std::to_string(line.size()) + " bytes, over the limit of " +
           std::to_string(a.max_payload_bytes) + " (--max-payload-bytes)";
  if (!a.key_fields.empty()) {
    auto k = BusinessKeyFromPayload(line, a.key_fields);
    if (!k.ok()) return k.status().message();
    *key = *k;
    return {};
  }
  // Without key fields the payload must still be a JSON object: consumers need one.
  if (Status s = CheckJsonObject(line); !s.ok()) return s.message();
  if (!a.key.empty()) {
    if (std::string why = ValidateKey(a.key); !why.empty()) return why;
    *key = a.key;
  }
  return {};
}

void Run(const PublishArgs& a) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (a.input != "-") {
    file.open(a.input, std::ios::binary);
    if (!file) throw CliError("cannot read input file '" + a.input + "'", 2);
    in = &file;
  }
  auto queue = OpenQueueOrDie(a.queue, QueueAccess::kCreate);
  std::vector<Message> batch;
  std::vector<Parked> parked;
  std::vector<int64_t> skipped;  // line numbers of empty and whitespace-only lines
  int64_t published = 0, line_no = 0;
  auto flush = [&] {
    if (batch.empty()) return;
    Status s = queue->publisher().PublishBatch(batch, a.delay_ms);
    if (!s.ok())
      throw CliError("publishing failed after " + std::to_string(published) +
                     " messages (those are in the queue; nothing after them was written): " + s.ToString());
    published += static_cast<int64_t>(batch.size());
    batch.clear();
  };
  std::string line;
  while (std::getline(*in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) {
      skipped.push_back(line_no);
      continue;
    }
    Message m;
    m.topic = a.topic;
    m.payload = line;
    std::string why = Check(a, line, &m.key);
    // The business key is also the message id (RabbitMQ's message-id, the
    // embedded queue's id), so publishing a line again sends the same id: a
    // consumer that is not idem and deduplicates on the id sees the copy.
    m.id = m.key;
    if (!why.empty()) {
      flush();  // keep the queue in input order around the rejected line
      if (!queue->dead_letters())
        throw CliError("line " + std::to_string(line_no) + ": " + why + "; the broker at '" + RedactUrl(a.queue) +
                       "' keeps no dead-letter queue to park it in: fix the line and publish again");
      auto row = queue->dead_letters()->ParkRejected(m, "rejected at publish: line " + std::to_string(line_no) + ": " + why);
      if (!row.ok()) throw CliError("cannot park rejected line " + std::to_string(line_no) + ": " + row.status().ToString());
      std::cerr << "idem publish: line " << line_no << ": " << TerminalSafe(why) << " (parked as dead letter " << *row
                << ")\n";
      parked.push_back({line_no, *row, why});
      continue;
    }
    batch.push_back(std::move(m));
    if (batch.size() >= 1000) flush();
  }
  flush();
  if (!skipped.empty())
    std::cerr << "idem publish: skipped " << skipped.size() << " empty or whitespace-only line(s): "
              << LineList(skipped) << " (nothing to publish there)\n";
  if (a.json) {
    std::cout << DumpLine(Report(a, published, parked, skipped)) << "\n";
  } else if (!a.quiet) {
    std::cout << "published " << published << " message(s) to topic '" << a.topic << "'";
    if (!parked.empty()) std::cout << ", parked " << parked.size() << " rejected line(s)";
    if (!skipped.empty()) std::cout << ", skipped " << skipped.size() << " empty line(s)";
    std::cout << "\n";
  }
  if (!parked.empty())
    throw CliError(std::to_string(parked.size()) +
                       " line(s) were rejected and parked in the terminal queue; see: idem dlq list --queue " +
                       RedactUrl(a.queue),
                   1);
}

}  // namespace

void AddPublishCommand(CLI::App& app) {
  auto args = std::make_shared<PublishArgs>();
  auto* cmd = app.add_subcommand("publish",
                                 "Publish JSON lines (one message per line) to a queue file or a broker URL\n"
                                 "(amqp://…, kafka://…); the business key is sent as the message key and id.\n"
                                 "Each line must be a JSON object. Lines that are not, or that lack the key\n"
                                 "fields, or are too large, are parked in the terminal queue with the reason,\n"
                                 "and the command exits 1. Empty and whitespace-only lines are skipped and\n"
                                 "reported by line number (they hold nothing to publish or park). Example:\n"
                                 "  echo '{\"payment_id\":\"P1\",\"amount\":199}' | idem publish --queue q.db --topic pay --key-fields payment_id");
  cmd->add_option("--queue", args->queue, "Queue file (created if missing) or broker URL")->required();
  cmd->add_option("--topic", args->topic, "Topic of every message; consumers route on it")->required();
  cmd->add_option("--input", args->input, "File of JSON lines; '-' reads stdin")->capture_default_str();
  auto* kf = cmd->add_option("--key-fields", args->key_fields,
                             "Payload fields that form the business key, e.g. payment_id,scene")
                 ->delimiter(',');
  cmd->add_option("--key", args->key, "A fixed business key for every line (for a single message)")->excludes(kf);
  cmd->add_option("--max-payload-bytes", args->max_payload_bytes, "Larger lines are parked")
      ->capture_default_str()
      ->transform(IntegerIn(1, int64_t{1} << 30));
  // 30 days: RabbitMQ's per-queue TTL, which carries the delay there, tops out at 2^32 ms.
  cmd->add_option("--delay-ms", args->delay_ms, "Deliver no earlier than this many ms from now")
      ->capture_default_str()
      ->transform(IntegerIn(0, 30LL * 24 * 3600 * 1000));
  auto* quiet = cmd->add_flag("--quiet", args->quiet, "Print nothing on success");
  cmd->add_flag("--json", args->json,
                "Print one JSON object: published, parked, skipped counts, skipped_lines, and dead_letters "
                "(line, dead_letter_id as a string, reason)")
      ->excludes(quiet);
  cmd->callback([args] { Run(*args); });
}

}  // namespace idem::cli
