#include "service/toml_reader.h"

namespace idem::service {
namespace {

std::string TypeName(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "a whole number";
    case toml::node_type::floating_point: return "a decimal number";
    case toml::node_type::boolean: return "true/false";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time: return "a date or time";
    default: return "nothing";
  }
}

std::string Position(const std::string& path, const toml::source_region& r) {
  // Implicit tables have no position of their own; line 1 is the honest fallback.
  const auto line = r.begin.line == 0 ? 1u : r.begin.line;
  const auto column = r.begin.column == 0 ? 1u : r.begin.column;
  return path + ":" + std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace

TableReader::TableReader(const toml::table& table, std::string path, std::string name)
    : table_(&table), path_(std::move(path)), name_(std::move(name)) {}

std::string TableReader::Where() const { return Position(path_, table_->source()); }
std::string TableReader::Where(const toml::node& node) const { return Position(path_, node.source()); }

void TableReader::Fail(const toml::node* at, const std::string& what) const {
  throw ConfigError((at ? Where(*at) : Where()) + ": " + what);
}

const toml::node* TableReader::Node(std::string_view key) {
  known_.emplace(key);
  return table_->get(key);
}

std::optional<std::string> TableReader::String(std::string_view key) {
  const toml::node* n = Node(key);
  if (!n) return std::nullopt;
  if (!n->is_string()) Fail(n, name_ + " " + std::string(key) + " must be a string, found " + TypeName(*n));
  return n->as_string()->get();
}

std::string TableReader::RequiredString(std::string_view key, std::string_view what) {
  auto s = String(key);
  if (!s || s->empty())
    Fail(s ? Node(key) : nullptr, name_ + " needs " + std::string(key) + " = \"…\" (" + std::string(what) + ")");
  return *s;
}

int64_t TableReader::Int(std::string_view key, int64_t fallback, int64_t lo, int64_t hi) {
  const toml::node* n = Node(key);
  if (!n) return fallback;
  const std::string range = "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (!n->is_integer()) Fail(n, name_ + " " + std::string(key) + " must be " + range + ", found " + TypeName(*n));
  const int64_t v = n->as_integer()->get();
  if (v < lo || v > hi) Fail(n, name_ + " " + std::string(key) + " must be " + range + ", found " + std::to_string(v));
  return v;
}

bool TableReader::Bool(std::string_view key, bool fallback) {
  const toml::node* n = Node(key);
  if (!n) return fallback;
  if (!n->is_boolean()) Fail(n, name_ + " " + std::string(key) + " must be true or false, found " + TypeName(*n));
  return n->as_boolean()->get();
}

std::string TableReader::Choice(std::string_view key, std::string fallback, const std::vector<std::string>& choices) {
  auto s = String(key);
  if (!s) return fallback;
  for (const std::string& c : choices)
    if (*s == c) return c;
  std::string list;
  for (const std::string& c : choices) list += (list.empty() ? "\"" : ", \"") + c + "\"";
  Fail(Node(key), name_ + " " + std::string(key) + " must be one of " + list + ", found \"" + *s + "\"");
}

std::vector<int64_t> TableReader::IntArray(std::string_view key, std::vector<int64_t> fallback, int64_t lo,
                                           int64_t hi) {
  const toml::node* n = Node(key);
  if (!n) return fallback;
  const std::string what = name_ + " " + std::string(key) + " must be a non-empty array of whole numbers from " +
                           std::to_string(lo) + " to " + std::to_string(hi);
  if (!n->is_array()) Fail(n, what + ", found " + TypeName(*n));
  const toml::array& a = *n->as_array();
  if (a.empty()) Fail(n, what + ", found an empty array");
  std::vector<int64_t> out;
  for (const toml::node& e : a) {
    if (!e.is_integer()) Fail(&e, what + ", found " + TypeName(e));
    const int64_t v = e.as_integer()->get();
    if (v < lo || v > hi) Fail(&e, what + ", found " + std::to_string(v));
    out.push_back(v);
  }
  return out;
}

std::vector<Located> TableReader::StringArray(std::string_view key) {
  const toml::node* n = Node(key);
  if (!n) return {};
  const std::string what = name_ + " " + std::string(key) + " must be an array of strings";
  if (!n->is_array()) Fail(n, what + ", found " + TypeName(*n));
  std::vector<Located> out;
  for (const toml::node& e : *n->as_array()) {
    if (!e.is_string() || e.as_string()->get().empty()) Fail(&e, what + " (not empty), found " + TypeName(e));
    out.push_back({e.as_string()->get(), Where(e)});
  }
  return out;
}

std::optional<TableReader> TableReader::Table(std::string_view key) {
  const toml::node* n = Node(key);
  if (!n) return std::nullopt;
  if (!n->is_table())
    Fail(n, std::string(key) + " must be a table ([" + std::string(key) + "]), found " + TypeName(*n));
  return TableReader(*n->as_table(), path_, "[" + std::string(key) + "]");
}

std::vector<TableReader> TableReader::TableArray(std::string_view key) {
  const toml::node* n = Node(key);
  if (!n) return {};
  if (!n->is_array_of_tables())
    Fail(n, std::string(key) + " must be written as [[" + std::string(key) + "]] tables, found " + TypeName(*n));
  std::vector<TableReader> out;
  int i = 0;
  for (const toml::node& e : *n->as_array())
    out.emplace_back(*e.as_table(), path_, "[[" + std::string(key) + "]] #" + std::to_string(++i));
  return out;
}

void TableReader::Finish() const {
  for (auto&& [k, v] : *table_) {
    if (known_.count(k.str())) continue;
    std::string list;
    for (const std::string& name : known_) list += (list.empty() ? "" : ", ") + name;
    throw ConfigError(Position(path_, k.source()) + ": unknown key '" + std::string(k.str()) + "' in " + name_ +
                      " (this table takes: " + list + ")");
  }
}

}  // namespace idem::service
