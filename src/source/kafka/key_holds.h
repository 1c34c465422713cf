// KeyHolds: the gate of the ordered retry mode (kafka.h, "Retry modes").
//
// Per partition, one record of each key is out at a time — with the pipeline,
// released, or waiting for its retry in place — and the key's later records
// wait here, in offset order, until that one is settled for good (applied, a
// duplicate, or dead-lettered). The other keys of the partition flow, as in
// Confluent's parallel consumer (KEY ordering). A record without a key has no
// key order to keep (a producer spreads keyless records over the partitions):
// it is never held, and holds nothing.
//
// A partition is known by its receipt's (stream, partition) and the records of
// one assignment by its generation: a record of a newer generation starts the
// partition afresh (it moved away and back), and DropStale forgets the ones the
// consumer no longer holds. Pure bookkeeping over receipts: no librdkafka types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "idem/message.h"

namespace idem::kafka {

class KeyHolds {
 public:
  // A record fresh from its partition. Returned when it may be handed out now
  // (its key is then out until Done); nullopt when it waits behind an earlier
  // record of its key (kept here), or is a copy of one already out or waiting
  // (librdkafka fetched it again; dropped).
  std::optional<Message> Admit(Message m);
  // The record handed out with `receipt` is settled for good: its key's next
  // waiting record may go. Any other receipt does nothing.
  void Done(const Receipt& receipt);
  // Moves up to `max` waiting records whose key is free into `out`, lowest
  // offset first within a partition; each takes its key.
  void TakeReady(size_t max, std::vector<Message>& out);
  // Forgets the partitions whose records `current` says are stale.
  void DropStale(const std::function<bool(const Receipt&)>& current);
  void Clear() { partitions_.clear(); }

  // How many records wait in the partition (stream, partition).
  size_t Waiting(int32_t stream, int32_t partition) const;

 private:
  struct Key {
    int64_t out = -1;  // the offset of the key's record that is out, -1 when none is
    std::deque<Message> waiting;
  };
  struct Partition {
    int64_t generation = 0;
    int64_t highest = -1;  // the highest offset admitted
    size_t waiting = 0;
    Receipt any;  // a receipt of this assignment, for DropStale
    std::map<std::string, Key> keys;
  };
  using Id = std::pair<int32_t, int32_t>;  // (stream, partition)

  std::map<Id, Partition> partitions_;
};

}  // namespace idem::kafka
