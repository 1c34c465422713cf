// idem publish: JSON lines in, messages out. A line that cannot be a message is
// parked in the terminal queue with its reason — never silently dropped.
//
// Empty and whitespace-only lines are skipped, counted and named (line numbers
// on stderr, in the summary and in --json), not parked: they hold no bytes to
// keep or replay, and a dead letter for each stray newline would only set off
// the dead-letter alarm an operator watches for real failures.
#include <fstream>
#include <limits>
#include <iostream>

#include "cli_checks.h"
#include "cli_util.h"
#include "core/bounded_text.h"
#include "core/key_length.h"
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
  int64_t skip_lines = 0;  // resume: the first lines of the input were handled by an earlier run
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
    // The consumer's key is "<topic>:<key>": checked whole, as it will check it.
    if (std::string why = CheckDerivedKeyLength(a.topic, *k); !why.empty()) return why;
    *key = *k;
    return {};
  }
  // Without key fields the payload must still be a JSON object: consumers need one.
  if (Status s = CheckJsonObject(line); !s.ok()) return s.message();
  *key = a.key;  // checked once, before the first line (CheckFixedKey)
  return {};
}

// --key is the same for every line: a key no consumer would accept is a usage
// error; so is a topic that leaves no room for any key under it.
void CheckFixedKey(const PublishArgs& a) {
  if ((!a.key.empty() || !a.key_fields.empty()) && MaxBusinessKeyBytes(a.topic) == 0)
    throw CliError("--topic " + BoundedQuote(a.topic) + " is the consumers' key prefix and leaves no room for a key "
                   "in the " + std::to_string(kMaxKeyBytes) + " bytes an idempotency key may take: use a shorter topic",
                   2);
  if (a.key.empty()) return;
  std::string why = ValidateKey(a.key);
  if (why.empty()) why = CheckDerivedKeyLength(a.topic, a.key);
  if (!why.empty()) throw CliError("--key: " + why, 2);
}

// One input line waiting in the batch.
struct Pending {
  int64_t line = 0;
  Message message;
};

// "lines 3–7" / "line 3"
std::string LineRange(int64_t first, int64_t last) {
  return first == last ? "line " + std::to_string(first)
                       : "lines " + std::to_string(first) + "–" + std::to_string(last);
}

// Publishes line by line and stops at an error, saying exactly how far it got:
// every line up to `done_through` is settled (published, parked or skipped) and
// a rerun with --skip-lines done_through sends each later line once.
class LinePublisher {
 public:
  LinePublisher(const PublishArgs& a, Broker& queue) : a_(a), queue_(queue), done_through_(a.skip_lines) {}

  void Add(int64_t line, Message m) {
    batch_.push_back({line, std::move(m)});
    if (batch_.size() >= 1000) Flush(line);
  }
  // Publishes the batch; then every line up to `through` is settled.
  void Flush(int64_t through) {
    if (!batch_.empty()) {
      std::vector<Message> messages;
      for (Pending& p : batch_) messages.push_back(std::move(p.message));
      Status s = queue_.publisher().PublishBatch(messages, a_.delay_ms);
      if (s.ok()) {
        published_ += static_cast<int64_t>(batch_.size());
      } else {
        for (size_t i = 0; i < batch_.size(); ++i) batch_[i].message = std::move(messages[i]);
        // InvalidArgument: the broker refused a message before sending any of
        // the batch. Sending them one at a time finds the line and publishes
        // the lines before it, once each.
        if (s.code() != Status::Code::kInvalidArgument) Fail(s, through);
        OneByOne();
      }
      batch_.clear();
    }
    done_through_ = through;
  }
  void Settled(int64_t line) { done_through_ = line; }
  int64_t published() const { return published_; }

 private:
  void OneByOne() {
    for (size_t i = 0; i < batch_.size(); ++i) {
      std::vector<Message> one{batch_[i].message};
      Status s = queue_.publisher().PublishBatch(one, a_.delay_ms);
      if (s.code() == Status::Code::kInvalidArgument) Stop(batch_[i].line, s);
      if (!s.ok()) {
        const int64_t last = batch_.back().line;
        batch_.erase(batch_.begin(), batch_.begin() + static_cast<std::ptrdiff_t>(i));  // the ones done
        Fail(s, last);
      }
      ++published_;
      done_through_ = batch_[i].line;
    }
  }

  std::string Done() const {
    return std::to_string(published_) + " message(s) published" +
           (done_through_ > a_.skip_lines ? "; " + LineRange(a_.skip_lines + 1, done_through_) +
                                                " are done (published, parked or skipped)"
                                          : "");
  }
  std::string Resume(const std::string& before) const {
    return before + "publish the rest with the same command and --skip-lines " + std::to_string(done_through_);
  }

  // Line `line` can never be published as it is: nothing from it on was sent.
  [[noreturn]] void Stop(int64_t line, const Status& s) {
    throw CliError("line " + std::to_string(line) + " cannot be published: " + s.message() + ". " + Done() +
                       "; line " + std::to_string(line) + " and the lines after it were not sent. " +
                       Resume("Fix line " + std::to_string(line) + ", then "),
                   1);
  }
  // The broker failed while the batch was on its way: any of it may be stored.
  [[noreturn]] void Fail(const Status& s, int64_t through) {
    const std::string open = LineRange(batch_.front().line, through);
    throw CliError("publishing failed: " + s.ToString() + ". " + Done() + "; " + open +
                       " were being published and may be in the queue or not; nothing after them was sent. " +
                       Resume(std::string(s.IsRetryable() ? "When the broker is back, " : "Once that is fixed, ")) +
                       " (copies of " + open + " carry the same message id and business key: idem consumers "
                       "apply each once)",
                   1);
  }

  const PublishArgs& a_;
  Broker& queue_;
  std::vector<Pending> batch_;
  int64_t published_ = 0;
  int64_t done_through_;
};

void Run(const PublishArgs& a) {
  CheckFixedKey(a);
  std::ifstream file;
  std::istream* in = &std::cin;
  if (a.input != "-") {
    file.open(a.input, std::ios::binary);
    if (!file) throw CliError("cannot read input file '" + a.input + "'", 2);
    in = &file;
  }
  auto queue = OpenQueueOrDie(a.queue, QueueAccess::kCreate);
  LinePublisher out(a, *queue);
  std::vector<Parked> parked;
  std::vector<int64_t> skipped;  // line numbers of empty and whitespace-only lines
  int64_t line_no = 0;
  std::string line;
  while (line_no < a.skip_lines && std::getline(*in, line)) ++line_no;  // handled by an earlier run
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
      out.Flush(line_no - 1);  // keep the queue in input order around the rejected line
      if (!queue->dead_letters())
        throw CliError("line " + std::to_string(line_no) + ": " + why + "; the broker at '" + RedactUrl(a.queue) +
                       "' keeps no dead-letter queue to park it in: fix the line and publish again with --skip-lines " +
                       std::to_string(line_no - 1));
      auto row = queue->dead_letters()->ParkRejected(m, "rejected at publish: line " + std::to_string(line_no) + ": " + why);
      if (!row.ok())
        throw CliError("cannot park rejected line " + std::to_string(line_no) + ": " + row.status().ToString() + ". " +
                       std::to_string(out.published()) + " message(s) published; publish the rest with --skip-lines " +
                       std::to_string(line_no - 1));
      std::cerr << "idem publish: line " << line_no << ": " << TerminalSafe(why) << " (parked as dead letter " << *row << ")\n";
      parked.push_back({line_no, *row, why});
      out.Settled(line_no);
      continue;
    }
    out.Add(line_no, std::move(m));
  }
  out.Flush(line_no);
  const int64_t published = out.published();
  if (!skipped.empty())
    std::cerr << "idem publish: skipped " << skipped.size() << " empty or whitespace-only line(s): "
              << LineList(skipped) << " (nothing to publish there)\n";
  if (a.json) {
    std::cout << DumpLine(Report(a, published, parked, skipped)) << "\n";
  } else if (!a.quiet) {
    std::cout << "published " << published << " message(s) to topic " << BoundedQuote(a.topic);
    if (!parked.empty()) std::cout << ", parked " << parked.size() << " rejected line(s)";
    if (!skipped.empty()) std::cout << ", skipped " << skipped.size() << " empty line(s)";
    if (a.skip_lines > 0) std::cout << " (after the first " << a.skip_lines << " line(s), as --skip-lines asked)";
    std::cout << "\n";
  }
  if (!parked.empty())
    throw CliError(std::to_string(parked.size()) +
                       " line(s) were rejected and parked in the terminal queue; see: idem dlq list --broker " +
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
                                 "  echo '{\"payment_id\":\"P1\",\"amount\":199}' | idem publish --broker q.db --topic pay --key-fields payment_id");
  AddBrokerOption(cmd, &args->queue, "Queue file (created if missing) or broker URL")->required();
  cmd->add_option("--topic", args->topic, "Topic of every message; consumers route on it")->required()->check(NotBlank());
  cmd->add_option("--input", args->input, "File of JSON lines; '-' reads stdin")->capture_default_str();
  auto* kf = cmd->add_option("--key-fields", args->key_fields,
                             "Payload fields that form the business key, e.g. payment_id,scene")
                 ->delimiter(',')
                 ->check(NotBlank());
  cmd->add_option("--key", args->key, "A fixed business key for every line (for a single message)")->excludes(kf);
  cmd->add_option("--max-payload-bytes", args->max_payload_bytes, "Larger lines are parked")
      ->capture_default_str()
      ->transform(IntegerIn(1, int64_t{1} << 30));
  // 30 days: RabbitMQ's per-queue TTL, which carries the delay there, tops out at 2^32 ms.
  cmd->add_option("--delay-ms", args->delay_ms, "Deliver no earlier than this many ms from now")
      ->capture_default_str()
      ->transform(IntegerIn(0, 30LL * 24 * 3600 * 1000));
  cmd->add_option("--skip-lines", args->skip_lines,
                  "Skip the first N lines of the input: resume after a run that stopped, with the N it printed")
      ->capture_default_str()
      ->transform(IntegerIn(0, std::numeric_limits<int64_t>::max()));
  auto* quiet = cmd->add_flag("--quiet", args->quiet, "Print nothing on success");
  cmd->add_flag("--json", args->json,
                "Print one JSON object: published, parked, skipped counts, skipped_lines, and dead_letters "
                "(line, dead_letter_id as a string, reason)")
      ->excludes(quiet);
  cmd->callback([args] { Run(*args); });
}

}  // namespace idem::cli
