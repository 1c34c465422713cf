// AMQP header tables: reading the values idem cares about, rendering them as
// text for Message::headers, and editing a copy before a message is republished.
//
// Republishing keeps the original table (typed values, nested x-death history)
// and only sets or removes idem's own keys, so a retried or parked message
// reaches the next queue with everything its producer and the broker attached.
#pragma once

#include <amqp.h>

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace idem::rabbitmq {

// Text of a string header; integers are rendered in decimal.
std::optional<std::string> GetString(const amqp_table_t& table, std::string_view key);
// An integer header, or a string header holding a decimal integer (amqp-publish -H
// can only send strings).
std::optional<int64_t> GetInt(const amqp_table_t& table, std::string_view key);
const amqp_field_value_t* Find(const amqp_table_t& table, std::string_view key);

// Every header as text: strings as they are, numbers in decimal, tables and
// arrays (x-death) as JSON.
std::map<std::string, std::string> HeadersAsText(const amqp_table_t& table);

// One entry of the broker's x-death history.
struct Death {
  std::string queue;
  std::string reason;  // "expired", "rejected", "maxlen", "delivery_limit"
  int64_t count = 0;
  int64_t time_s = 0;  // when it last happened (the broker's clock)
  std::string routing_key;  // the first of the message's routing keys then
};
std::vector<Death> DeathsOf(const amqp_table_t& headers);

// An editable copy of a header table. Values set here are copied; the table
// returned by table() stays valid until the next edit or destruction.
class FieldTable {
 public:
  FieldTable();
  ~FieldTable();
  FieldTable(const FieldTable&) = delete;
  FieldTable& operator=(const FieldTable&) = delete;

  // Deep-copies `original` (nested tables and arrays included).
  void CopyFrom(const amqp_table_t& original);
  void SetString(std::string_view key, std::string_view value);
  void SetInt(std::string_view key, int64_t value);
  void Remove(std::string_view key);
  // Removes every key that starts with `prefix`.
  void RemovePrefix(std::string_view prefix);
  // Renames every key `matches` accepts to `prefix` + key; where the new
  // name is taken already, the entry that has it stays and the other goes.
  void RenameKeys(bool (*matches)(std::string_view key), std::string_view prefix);
  amqp_table_t table();
  // The entries in order, for sizing and trimming a copy (copy_fit.h).
  const std::vector<amqp_table_entry_t>& entries() const { return entries_; }
  // Keeps the entries whose index `keep` accepts, in their order.
  template <typename Keep>
  void Filter(Keep keep) {
    std::vector<amqp_table_entry_t> kept;
    for (size_t i = 0; i < entries_.size(); ++i)
      if (keep(i)) kept.push_back(entries_[i]);
    entries_ = std::move(kept);
  }

 private:
  amqp_field_value_t* Slot(std::string_view key);
  amqp_bytes_t Keep(std::string_view s);

  amqp_pool_t pool_;
  std::vector<amqp_table_entry_t> entries_;
  std::deque<std::string> strings_;  // stable storage for keys and values set here
};

}  // namespace idem::rabbitmq
