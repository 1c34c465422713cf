#include "source/kafka/key_holds.h"

#include <algorithm>

namespace idem::kafka {

std::optional<Message> KeyHolds::Admit(Message m) {
  const Receipt& r = m.receipt;
  Partition& p = partitions_[{r.stream, r.partition}];
  if (p.generation != r.generation) p = Partition{r.generation, -1, 0, r, {}};
  // librdkafka hands a partition's records out in offset order; one at or below
  // the highest admitted is a copy of a record still out or waiting here (a
  // settled one the consumer's offsets already skip).
  if (r.sequence <= p.highest) return std::nullopt;
  p.highest = r.sequence;
  if (m.key.empty()) return m;
  Key& k = p.keys[m.key];
  if (k.out < 0 && k.waiting.empty()) {
    k.out = r.sequence;
    return m;
  }
  k.waiting.push_back(std::move(m));
  ++p.waiting;
  return std::nullopt;
}

void KeyHolds::Done(const Receipt& receipt) {
  auto p = partitions_.find({receipt.stream, receipt.partition});
  if (p == partitions_.end() || p->second.generation != receipt.generation) return;
  for (auto k = p->second.keys.begin(); k != p->second.keys.end(); ++k) {
    if (k->second.out != receipt.sequence) continue;
    k->second.out = -1;
    if (k->second.waiting.empty()) p->second.keys.erase(k);
    return;
  }
}

void KeyHolds::TakeReady(size_t max, std::vector<Message>& out) {
  for (auto& [id, p] : partitions_) {
    if (out.size() >= max) return;
    if (p.waiting == 0) continue;
    std::vector<Key*> free;
    for (auto& [_, k] : p.keys)
      if (k.out < 0 && !k.waiting.empty()) free.push_back(&k);
    std::sort(free.begin(), free.end(), [](const Key* a, const Key* b) {
      return a->waiting.front().receipt.sequence < b->waiting.front().receipt.sequence;
    });
    for (Key* k : free) {
      if (out.size() >= max) return;
      k->out = k->waiting.front().receipt.sequence;
      out.push_back(std::move(k->waiting.front()));
      k->waiting.pop_front();
      --p.waiting;
    }
  }
}

void KeyHolds::DropStale(const std::function<bool(const Receipt&)>& current) {
  for (auto it = partitions_.begin(); it != partitions_.end();) {
    if (current(it->second.any)) ++it;
    else it = partitions_.erase(it);
  }
}

size_t KeyHolds::Waiting(int32_t stream, int32_t partition) const {
  auto p = partitions_.find({stream, partition});
  return p == partitions_.end() ? 0 : p->second.waiting;
}

}  // namespace idem::kafka
