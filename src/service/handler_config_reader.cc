#include "service/handler_config_reader.h"

#include <algorithm>

#include "guards/sql_identifier.h"

namespace idem::service {
namespace {

std::string Identifier(TableReader& t, std::string_view key, std::string_view what) {
  std::string name = t.RequiredString(key, what);
  if (!guards::IsSqlIdentifier(name))
    t.Fail(t.Node(key), t.name() + " " + std::string(key) + " = \"" + name +
                            "\" is not a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 bytes)");
  return name;
}

StopAs ReadStopAs(TableReader& t, std::string_view key, StopAs fallback, const std::vector<std::string>& allowed) {
  static const std::vector<std::pair<std::string, StopAs>> kNames = {
      {"ack", StopAs::kAck}, {"retry", StopAs::kRetry}, {"park", StopAs::kPark}, {"continue", StopAs::kGoOn}};
  std::string fallback_name;
  for (const auto& [n, v] : kNames)
    if (v == fallback) fallback_name = n;
  const std::string chosen = t.Choice(key, fallback_name, allowed);
  for (const auto& [n, v] : kNames)
    if (n == chosen) return v;
  return fallback;
}

// "amount" or "/order/id" (a field), "$now_ms", "$idempotency_key", 42, { text = "TOPUP" }.
ValueSource ReadValue(const TableReader& t, const toml::node& n, const std::string& what) {
  ValueSource v;
  if (n.is_integer()) {
    v.kind = ValueSource::Kind::kInt;
    v.number = n.as_integer()->get();
    return v;
  }
  if (n.is_table() && n.as_table()->size() == 1 && n.as_table()->contains("text") &&
      n.as_table()->get("text")->is_string()) {
    v.kind = ValueSource::Kind::kText;
    v.text = n.as_table()->get("text")->as_string()->get();
    return v;
  }
  if (n.is_table() && n.as_table()->size() == 1 && n.as_table()->contains("minus") &&
      n.as_table()->get("minus")->is_string()) {
    v.kind = ValueSource::Kind::kMinusField;
    v.text = n.as_table()->get("minus")->as_string()->get();
    return v;
  }
  if (n.is_string() && !n.as_string()->get().empty()) {
    v.text = n.as_string()->get();
    if (v.text == "$now_ms") v.kind = ValueSource::Kind::kNowMs;
    else if (v.text == "$idempotency_key") v.kind = ValueSource::Kind::kIdempotencyKey;
    else if (v.text[0] == '$')
      t.Fail(&n, what + ": unknown \"" + v.text + "\" (the specials are \"$now_ms\" and \"$idempotency_key\"; "
                 "a payload member whose name starts with '$' is written as a JSON pointer, \"/" + v.text + "\")");
    return v;
  }
  t.Fail(&n, what + " must be a payload field (\"amount_cents\" or a JSON pointer \"/order/id\"), \"$now_ms\", "
             "\"$idempotency_key\", a whole number, { text = \"…\" } or { minus = \"FIELD\" }");
}

ValueSource RequiredValue(TableReader& t, std::string_view key, const std::string& what) {
  const toml::node* n = t.Node(key);
  if (!n) t.Fail(nullptr, t.name() + " needs " + std::string(key) + " = … (" + what + ")");
  return ReadValue(t, *n, t.name() + " " + std::string(key));
}

ColumnSources ReadColumns(TableReader& t, std::string_view key, bool required) {
  const toml::node* n = t.Node(key);
  ColumnSources out;
  if (!n) {
    if (required) t.Fail(nullptr, t.name() + " needs " + std::string(key) + " = { column = value, … }");
    return out;
  }
  if (!n->is_table() || (required && n->as_table()->empty()))
    t.Fail(n, t.name() + " " + std::string(key) + " must be a table { column = value, … }" +
                  (required ? " with at least one column" : ""));
  for (auto&& [column, value] : *n->as_table()) {
    const std::string name(column.str());
    if (!guards::IsSqlIdentifier(name))
      t.Fail(&value, t.name() + " " + std::string(key) + ": column \"" + name + "\" is not a plain SQL identifier");
    out.emplace_back(name, ReadValue(t, value, t.name() + " " + std::string(key) + "." + name));
  }
  return out;
}

// Key and fingerprint fields: top-level members, written as names or one-level pointers.
std::vector<std::string> TopLevelFields(TableReader& t, std::string_view key) {
  std::vector<std::string> out;
  for (const Located& f : t.StringArray(key)) {
    std::string name = f.value[0] == '/' ? f.value.substr(1) : f.value;
    if (name.empty() || name.find('/') != std::string::npos || name.find('~') != std::string::npos)
      throw ConfigError(f.where + ": " + t.name() + " " + std::string(key) + " \"" + f.value +
                        "\" must name a top-level member (\"payment_id\" or \"/payment_id\"): keys and "
                        "fingerprints are built from top-level fields");
    out.push_back(name);
  }
  return out;
}

void ReadInsertOnce(TableReader& t, StepConfig& s) {
  s.kind = StepConfig::Kind::kInsertOnce;
  s.table = Identifier(t, "insert_once", "the table, with the UNIQUE constraint that defines the same row");
  s.columns = ReadColumns(t, "columns", true);
  s.on_already_applied = ReadStopAs(t, "on_already_applied", StopAs::kAck, {"ack", "continue", "park"});
}

void ReadChangeBalance(TableReader& t, StepConfig& s) {
  s.kind = StepConfig::Kind::kChangeBalance;
  s.table = Identifier(t, "change_balance", "the accounts table");
  s.key_column = Identifier(t, "key_column", "the account's key column");
  s.balance_column = Identifier(t, "balance_column", "the integer balance column");
  s.key = RequiredValue(t, "key", "which account");
  if (t.Has("add") == t.Has("subtract"))
    t.Fail(nullptr, t.name() + " needs exactly one of add = … or subtract = … (the amount, a whole number)");
  s.subtract = t.Has("subtract");
  s.amount = RequiredValue(t, s.subtract ? "subtract" : "add", "the amount");
  s.floor = t.Int("floor", 0, INT64_MIN / 2, INT64_MAX / 2);
}

void ReadTransition(TableReader& t, StepConfig& s, const std::vector<StateMachineConfig>& machines) {
  s.kind = StepConfig::Kind::kTransition;
  s.machine = t.RequiredString("transition", "the [[state_machine]] name");
  auto m = std::find_if(machines.begin(), machines.end(), [&](const auto& c) { return c.name == s.machine; });
  if (m == machines.end()) t.Fail(t.Node("transition"), t.name() + ": no [[state_machine]] named \"" + s.machine + "\"");
  s.target = t.RequiredString("to", "the state to move to");
  bool reachable = false;
  for (const StateTransition& tr : m->spec.transitions) reachable |= tr.to == s.target;
  if (!reachable)
    t.Fail(t.Node("to"), t.name() + ": state machine \"" + s.machine + "\" has no transition to \"" + s.target + "\"");
  s.key = RequiredValue(t, "key", "which row");
  s.columns = ReadColumns(t, "also_set", false);
}

void ReadUpdateIfVersion(TableReader& t, StepConfig& s) {
  s.kind = StepConfig::Kind::kUpdateIfVersion;
  s.table = Identifier(t, "update_if_version", "the table");
  s.key_column = Identifier(t, "key_column", "the row's key column");
  s.version_column = Identifier(t, "version_column", "the integer version column");
  s.key = RequiredValue(t, "key", "which row");
  s.expected_version = RequiredValue(t, "expected_version", "the version the event was computed from");
  s.columns = ReadColumns(t, "set", true);
  s.on_version_moved = ReadStopAs(t, "on_version_moved", StopAs::kAck, {"ack", "retry", "park"});
}

void ReadSql(TableReader& t, StepConfig& s) {
  s.kind = StepConfig::Kind::kSql;
  s.sql = t.RequiredString("sql", "one statement with ? markers");
  const toml::node* p = t.Node("params");
  if (p && !p->is_array()) t.Fail(p, t.name() + " params must be an array, one value per ? marker");
  if (p)
    for (const toml::node& e : *p->as_array()) s.params.push_back(ReadValue(t, e, t.name() + " params"));
  const size_t markers = static_cast<size_t>(std::count(s.sql.begin(), s.sql.end(), '?'));
  if (markers != s.params.size())
    t.Fail(p ? p : t.Node("sql"), t.name() + ": the statement has " + std::to_string(markers) +
                                      " ? marker(s) and params has " + std::to_string(s.params.size()) + " value(s)");
  s.expect_rows = t.Int("expect_rows", -1, -1, INT64_MAX / 2);
  s.on_other_rows = ReadStopAs(t, "on_other_rows", StopAs::kPark, {"ack", "retry", "park"});
}

}  // namespace

StateMachineConfig ReadStateMachine(TableReader t) {
  StateMachineConfig m;
  m.where = t.Where();
  m.name = t.RequiredString("name", "what transition steps call it");
  m.spec.table = t.RequiredString("table", "the table holding the state");
  m.spec.key_column = t.RequiredString("key_column", "the row's key column");
  m.spec.state_column = t.RequiredString("state_column", "the text column holding the state");
  m.spec.version_column = t.String("version_column").value_or("");
  const toml::node* tr = t.Node("transitions");
  const std::string shape = t.name() + " transitions must be [[\"FROM\", \"TO\"], …] with at least one pair";
  if (!tr || !tr->is_array() || tr->as_array()->empty()) t.Fail(tr, shape);
  for (const toml::node& pair : *tr->as_array()) {
    const toml::array* a = pair.as_array();
    if (!a || a->size() != 2 || !(*a)[0].is_string() || !(*a)[1].is_string()) t.Fail(&pair, shape);
    m.spec.transitions.push_back({(*a)[0].as_string()->get(), (*a)[1].as_string()->get()});
  }
  m.on_stale = ReadStopAs(t, "on_stale", StopAs::kAck, {"ack", "park"});
  t.Finish();
  if (auto checked = StateMachine::Create(m.spec); !checked.ok())
    t.Fail(nullptr, t.name() + " \"" + m.name + "\": " + checked.status().message());
  return m;
}

DeclaredHandler ReadDeclaredHandler(TableReader t, const std::vector<StateMachineConfig>& machines) {
  DeclaredHandler h;
  h.where = t.Where();
  h.topic = t.RequiredString("topic", "the topic whose messages this handler takes");
  h.key_fields = TopLevelFields(t, "key");
  if (h.key_fields.empty())
    t.Fail(t.Has("key") ? t.Node("key") : nullptr,
           t.name() + " (topic \"" + h.topic + "\") needs key = [\"FIELD\", …]: the business identity of a message");
  h.fingerprint_fields = TopLevelFields(t, "fingerprint");
  int index = 0;
  for (TableReader& st : t.TableArray("step")) {
    TableReader step(st);
    StepConfig s;
    s.where = step.Where();
    const std::vector<std::string> kinds = {"insert_once", "change_balance", "transition", "update_if_version", "sql"};
    int present = 0;
    for (const std::string& k : kinds) present += step.Has(k) ? 1 : 0;
    const std::string label = "step " + std::to_string(++index) + " of topic \"" + h.topic + "\"";
    if (present != 1)
      step.Fail(nullptr, label + " needs exactly one of insert_once, change_balance, transition, "
                                 "update_if_version, sql (found " + std::to_string(present) + ")");
    if (step.Has("insert_once")) ReadInsertOnce(step, s);
    else if (step.Has("change_balance")) ReadChangeBalance(step, s);
    else if (step.Has("transition")) ReadTransition(step, s, machines);
    else if (step.Has("update_if_version")) ReadUpdateIfVersion(step, s);
    else ReadSql(step, s);
    step.Finish();
    h.steps.push_back(std::move(s));
  }
  if (h.steps.empty())
    t.Fail(nullptr, t.name() + " (topic \"" + h.topic + "\") needs at least one [[consumer.handler.step]]");
  t.Finish();
  return h;
}

}  // namespace idem::service
