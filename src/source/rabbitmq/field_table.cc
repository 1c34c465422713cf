#include "source/rabbitmq/field_table.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>
#include <utility>

#include "source/rabbitmq/connection.h"

namespace idem::rabbitmq {
namespace {

using nlohmann::json;

bool KeyIs(const amqp_bytes_t& key, std::string_view want) {
  return key.len == want.size() && (want.empty() || std::memcmp(key.bytes, want.data(), want.size()) == 0);
}

std::optional<int64_t> AsInt(const amqp_field_value_t& v) {
  switch (v.kind) {
    case AMQP_FIELD_KIND_I8: return v.value.i8;
    case AMQP_FIELD_KIND_U8: return v.value.u8;
    case AMQP_FIELD_KIND_I16: return v.value.i16;
    case AMQP_FIELD_KIND_U16: return v.value.u16;
    case AMQP_FIELD_KIND_I32: return v.value.i32;
    case AMQP_FIELD_KIND_U32: return v.value.u32;
    case AMQP_FIELD_KIND_I64: return v.value.i64;
    case AMQP_FIELD_KIND_U64:
    case AMQP_FIELD_KIND_TIMESTAMP: return static_cast<int64_t>(v.value.u64);
    case AMQP_FIELD_KIND_UTF8:
    case AMQP_FIELD_KIND_BYTES: {
      const std::string s = BytesToString(v.value.bytes);
      int64_t out = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
      if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
      return out;
    }
    default: return std::nullopt;
  }
}

// Header tables nest as deep as a producer likes (a 128 KiB frame holds ~26,000
// levels); as text, deeper levels are summarised so rendering cannot exhaust the
// stack. The table itself travels on untouched (FieldTable copies all of it).
constexpr int kMaxTextDepth = 64;
constexpr const char* kTooDeep = "(nested deeper than 64 levels)";

json ToJson(const amqp_field_value_t& v, int depth);

json TableToJson(const amqp_table_t& t, int depth) {
  json j = json::object();
  // A repeated name keeps its first value, the one Find() reads.
  for (int i = 0; i < t.num_entries; ++i)
    j.emplace(BytesToString(t.entries[i].key), ToJson(t.entries[i].value, depth + 1));
  return j;
}

json ToJson(const amqp_field_value_t& v, int depth) {
  const bool nested = v.kind == AMQP_FIELD_KIND_TABLE || v.kind == AMQP_FIELD_KIND_ARRAY;
  if (nested && depth >= kMaxTextDepth) return kTooDeep;
  switch (v.kind) {
    case AMQP_FIELD_KIND_BOOLEAN: return static_cast<bool>(v.value.boolean);
    case AMQP_FIELD_KIND_F32: return v.value.f32;
    case AMQP_FIELD_KIND_F64: return v.value.f64;
    case AMQP_FIELD_KIND_UTF8:
    case AMQP_FIELD_KIND_BYTES: return BytesToString(v.value.bytes);
    case AMQP_FIELD_KIND_TABLE: return TableToJson(v.value.table, depth);
    case AMQP_FIELD_KIND_ARRAY: {
      json a = json::array();
      for (int i = 0; i < v.value.array.num_entries; ++i) a.push_back(ToJson(v.value.array.entries[i], depth + 1));
      return a;
    }
    case AMQP_FIELD_KIND_VOID: return nullptr;
    case AMQP_FIELD_KIND_DECIMAL:
      return std::to_string(v.value.decimal.value) + "e-" + std::to_string(v.value.decimal.decimals);
    default: {
      auto n = AsInt(v);
      return n ? json(*n) : json(nullptr);
    }
  }
}

// Deep copies into `pool`. (amqp_table_clone refuses a table with an empty key,
// which the wire format allows: the copy would lose every header.) Iterative:
// a table can nest deeper than the stack allows recursion.
bool CloneBytes(const amqp_bytes_t& in, amqp_bytes_t* out, amqp_pool_t* pool) {
  *out = amqp_empty_bytes;
  if (in.len == 0) return true;
  out->bytes = amqp_pool_alloc(pool, in.len);
  if (out->bytes == nullptr) return false;
  std::memcpy(out->bytes, in.bytes, in.len);
  out->len = in.len;
  return true;
}

template <typename T>
T* AllocArray(int n, amqp_pool_t* pool) {
  return static_cast<T*>(amqp_pool_alloc(pool, sizeof(T) * static_cast<size_t>(n)));
}

bool CloneTable(const amqp_table_t& in, amqp_table_t* out, amqp_pool_t* pool) {
  std::vector<std::pair<const amqp_field_value_t*, amqp_field_value_t*>> pending;  // values still to copy
  auto copy_entries = [&](const amqp_table_t& from, amqp_table_t* to) {
    *to = amqp_empty_table;
    if (from.num_entries <= 0) return true;
    to->entries = AllocArray<amqp_table_entry_t>(from.num_entries, pool);
    if (to->entries == nullptr) return false;
    to->num_entries = from.num_entries;
    for (int i = 0; i < from.num_entries; ++i) {
      if (!CloneBytes(from.entries[i].key, &to->entries[i].key, pool)) return false;
      pending.emplace_back(&from.entries[i].value, &to->entries[i].value);
    }
    return true;
  };
  if (!copy_entries(in, out)) return false;
  while (!pending.empty()) {
    auto [from, to] = pending.back();
    pending.pop_back();
    *to = *from;  // scalars are values
    switch (from->kind) {
      case AMQP_FIELD_KIND_UTF8:
      case AMQP_FIELD_KIND_BYTES:
        if (!CloneBytes(from->value.bytes, &to->value.bytes, pool)) return false;
        break;
      case AMQP_FIELD_KIND_TABLE:
        if (!copy_entries(from->value.table, &to->value.table)) return false;
        break;
      case AMQP_FIELD_KIND_ARRAY: {
        const int n = from->value.array.num_entries;
        to->value.array = amqp_empty_array;
        if (n <= 0) break;
        to->value.array.entries = AllocArray<amqp_field_value_t>(n, pool);
        if (to->value.array.entries == nullptr) return false;
        to->value.array.num_entries = n;
        for (int i = 0; i < n; ++i) pending.emplace_back(&from->value.array.entries[i], &to->value.array.entries[i]);
        break;
      }
      default: break;
    }
  }
  return true;
}

}  // namespace

const amqp_field_value_t* Find(const amqp_table_t& table, std::string_view key) {
  for (int i = 0; i < table.num_entries; ++i)
    if (KeyIs(table.entries[i].key, key)) return &table.entries[i].value;
  return nullptr;
}

std::optional<std::string> GetString(const amqp_table_t& table, std::string_view key) {
  const amqp_field_value_t* v = Find(table, key);
  if (!v) return std::nullopt;
  if (v->kind == AMQP_FIELD_KIND_UTF8 || v->kind == AMQP_FIELD_KIND_BYTES) return BytesToString(v->value.bytes);
  if (auto n = AsInt(*v)) return std::to_string(*n);
  return std::nullopt;
}

std::optional<int64_t> GetInt(const amqp_table_t& table, std::string_view key) {
  const amqp_field_value_t* v = Find(table, key);
  return v ? AsInt(*v) : std::nullopt;
}

std::map<std::string, std::string> HeadersAsText(const amqp_table_t& table) {
  std::map<std::string, std::string> out;
  for (int i = 0; i < table.num_entries; ++i) {
    const amqp_field_value_t& v = table.entries[i].value;
    std::string key = BytesToString(table.entries[i].key);
    if (out.count(key)) continue;  // a repeated name keeps its first value, the one Find() reads
    if (v.kind == AMQP_FIELD_KIND_UTF8 || v.kind == AMQP_FIELD_KIND_BYTES) {
      out[key] = BytesToString(v.value.bytes);
    } else {
      json j = ToJson(v, 0);
      out[key] = j.is_string() ? j.get<std::string>() : j.dump(-1, ' ', false, json::error_handler_t::replace);
    }
  }
  return out;
}

std::vector<Death> DeathsOf(const amqp_table_t& headers) {
  std::vector<Death> out;
  const amqp_field_value_t* v = Find(headers, "x-death");
  if (!v || v->kind != AMQP_FIELD_KIND_ARRAY) return out;
  for (int i = 0; i < v->value.array.num_entries; ++i) {
    const amqp_field_value_t& e = v->value.array.entries[i];
    if (e.kind != AMQP_FIELD_KIND_TABLE) continue;
    Death d;
    d.queue = GetString(e.value.table, "queue").value_or("");
    d.reason = GetString(e.value.table, "reason").value_or("");
    d.count = GetInt(e.value.table, "count").value_or(1);
    d.time_s = GetInt(e.value.table, "time").value_or(0);
    const amqp_field_value_t* keys = Find(e.value.table, "routing-keys");
    if (keys && keys->kind == AMQP_FIELD_KIND_ARRAY && keys->value.array.num_entries > 0 &&
        keys->value.array.entries[0].kind == AMQP_FIELD_KIND_UTF8)
      d.routing_key = BytesToString(keys->value.array.entries[0].value.bytes);
    out.push_back(std::move(d));
  }
  return out;
}

FieldTable::FieldTable() { init_amqp_pool(&pool_, 4096); }
FieldTable::~FieldTable() { empty_amqp_pool(&pool_); }

void FieldTable::CopyFrom(const amqp_table_t& original) {
  entries_.clear();
  amqp_table_t clone{0, nullptr};
  if (CloneTable(original, &clone, &pool_))
    entries_.assign(clone.entries, clone.entries + clone.num_entries);
}

amqp_bytes_t FieldTable::Keep(std::string_view s) {
  strings_.emplace_back(s);
  return StringBytes(strings_.back());
}

amqp_field_value_t* FieldTable::Slot(std::string_view key) {
  for (amqp_table_entry_t& e : entries_)
    if (KeyIs(e.key, key)) return &e.value;
  amqp_table_entry_t e{};
  e.key = Keep(key);
  entries_.push_back(e);
  return &entries_.back().value;
}

void FieldTable::SetString(std::string_view key, std::string_view value) {
  amqp_field_value_t* v = Slot(key);
  v->kind = AMQP_FIELD_KIND_UTF8;
  v->value.bytes = Keep(value);
}

void FieldTable::SetInt(std::string_view key, int64_t value) {
  amqp_field_value_t* v = Slot(key);
  v->kind = AMQP_FIELD_KIND_I64;
  v->value.i64 = value;
}

void FieldTable::Remove(std::string_view key) {
  std::erase_if(entries_, [&](const amqp_table_entry_t& e) { return KeyIs(e.key, key); });
}

void FieldTable::RemovePrefix(std::string_view prefix) {
  std::erase_if(entries_, [&](const amqp_table_entry_t& e) {
    return e.key.len >= prefix.size() && std::memcmp(e.key.bytes, prefix.data(), prefix.size()) == 0;
  });
}

void FieldTable::RenameKeys(bool (*matches)(std::string_view), std::string_view prefix) {
  auto name = [](const amqp_table_entry_t& e) {
    return std::string_view(static_cast<const char*>(e.key.bytes), e.key.len);
  };
  auto taken = [&](const std::string& wanted) {
    for (const amqp_table_entry_t& e : entries_)
      if (KeyIs(e.key, wanted)) return true;
    return false;
  };
  std::vector<amqp_table_entry_t> kept;
  for (amqp_table_entry_t& e : entries_) {
    if (!matches(name(e))) {
      kept.push_back(e);
      continue;
    }
    std::string renamed = std::string(prefix) + std::string(name(e));
    if (taken(renamed)) continue;  // the sender's own entry of that name wins
    e.key = Keep(renamed);
    kept.push_back(e);
  }
  entries_ = std::move(kept);
}

amqp_table_t FieldTable::table() {
  amqp_table_t t;
  t.num_entries = static_cast<int>(entries_.size());
  t.entries = entries_.empty() ? nullptr : entries_.data();
  return t;
}

}  // namespace idem::rabbitmq
