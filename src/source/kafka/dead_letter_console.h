// The dead-letter console over the T-dlt topics: list, show, replay, purge.
//
// A log cannot delete one record. Replay appends a marker record (idem-dlt-hides
// = the entry's id, idem-dlt-action, idem-dlt-actor) to the entry's partition
// after the copy, and the console hides every entry a marker names; the marker
// is the audit trail too. Purge is NotSupported: the bytes stay in the topic
// until its retention (retention.ms / retention.bytes) removes them.
//
// Dead-letter ids: (index of the main topic in the URL << 56) | (partition << 40)
// | (offset + 1) — never 0 (DeadLetters::List's "after" starts there), stable for as long
// as the record is stored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "idem/broker.h"
#include "idem/kafka.h"
#include "source/kafka/confirmed_producer.h"

namespace idem::kafka {

class DeadLetterConsole {
 public:
  DeadLetterConsole(const KafkaOptions& options, std::string bootstrap, ConfirmedProducer* producer, Env* env)
      : options_(options), bootstrap_(std::move(bootstrap)), producer_(producer), env_(env) {}

  static int64_t Id(size_t stream, int32_t partition, int64_t offset) {
    return (static_cast<int64_t>(stream) << 56) | (static_cast<int64_t>(partition) << 40) | (offset + 1);
  }

  Result<std::vector<DeadLetter>> List(size_t limit, int64_t after_id);
  Result<std::optional<DeadLetter>> Get(int64_t id);
  // Republishes to the main topic with kReplayHeader = actor (attempts start
  // over), then hides the entries. `ids` empty = all. Returns how many moved.
  Result<int64_t> Replay(const std::vector<int64_t>& ids, const std::string& actor);
  // NotSupported: a log cannot delete one record (the message says what to do).
  Result<int64_t> Purge(const std::vector<int64_t>& ids, const std::string& actor);

 private:
  struct Entry {
    DeadLetter letter;
    size_t stream = 0;
    int32_t partition = 0;
  };
  Result<std::vector<Entry>> Scan();
  Result<std::vector<Entry>> Select(const std::vector<int64_t>& ids);
  Status Hide(const std::vector<Entry>& entries, const std::string& action, const std::string& actor);

  KafkaOptions options_;
  std::string bootstrap_;
  ConfirmedProducer* producer_;
  Env* env_;
};

}  // namespace idem::kafka
