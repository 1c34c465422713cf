#include "service/declared_schema_check.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

namespace idem::service {
namespace {

// What a step does with a column, and so which types can serve it.
enum class Use {
  kAny,     // bound or compared as the message's value: any type (the engine converts or refuses per value)
  kNumber,  // arithmetic and comparisons with whole numbers: a balance, a version
  kText,    // holds state names
};

struct ColumnNeed {
  std::string column;
  std::string role;  // the key that names it, for the message: "balance_column", "columns.amount"
  Use use = Use::kAny;
};

// Where a table is named: the step, and when the table comes from a state
// machine, that machine's table.
struct TableNeed {
  std::string where;   // FILE:LINE:COLUMN first in every message
  std::string label;   // "step 2 of topic \"pay\" (change_balance)"
  std::string table;
  std::string named_by;  // how the user names it: "change_balance = \"accounts\""
  std::vector<ColumnNeed> columns;
};

const char* StepKindName(StepConfig::Kind k) {
  switch (k) {
    case StepConfig::Kind::kInsertOnce: return "insert_once";
    case StepConfig::Kind::kChangeBalance: return "change_balance";
    case StepConfig::Kind::kTransition: return "transition";
    case StepConfig::Kind::kUpdateIfVersion: return "update_if_version";
    case StepConfig::Kind::kSql: return "sql";
  }
  return "step";
}

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool Serves(TableColumn::Kind kind, Use use) {
  using K = TableColumn::Kind;
  switch (use) {
    case Use::kAny: return true;
    case Use::kNumber: return kind == K::kInteger || kind == K::kDecimal || kind == K::kReal || kind == K::kAny;
    case Use::kText: return kind == K::kText || kind == K::kAny || kind == K::kOther;
  }
  return true;
}

std::string WhatItMustBe(Use use) {
  if (use == Use::kNumber)
    return "a number column (INTEGER, BIGINT or NUMERIC): the step adds whole numbers to it and compares it with them";
  return "a text column (TEXT or VARCHAR): it holds the state names";
}

std::string ColumnList(const std::vector<TableColumn>& columns) {
  std::string out;
  for (const TableColumn& c : columns) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

void AddColumns(const ColumnSources& sources, const std::string& key, std::vector<ColumnNeed>& out) {
  for (const auto& [column, value] : sources) out.push_back({column, key + "." + column, Use::kAny});
}

// The tables and columns one step names (none for an sql step: its statement is compiled instead).
std::optional<TableNeed> NeedOf(const ServiceConfig& config, const StepConfig& s, const std::string& label) {
  TableNeed n{s.where, label, s.table, std::string(StepKindName(s.kind)) + " = \"" + s.table + "\"", {}};
  switch (s.kind) {
    case StepConfig::Kind::kInsertOnce:
      AddColumns(s.columns, "columns", n.columns);
      return n;
    case StepConfig::Kind::kChangeBalance:
      n.columns = {{s.key_column, "key_column", Use::kAny}, {s.balance_column, "balance_column", Use::kNumber}};
      return n;
    case StepConfig::Kind::kUpdateIfVersion:
      n.columns = {{s.key_column, "key_column", Use::kAny}, {s.version_column, "version_column", Use::kNumber}};
      AddColumns(s.columns, "set", n.columns);
      return n;
    case StepConfig::Kind::kTransition: {
      auto m = std::find_if(config.state_machines.begin(), config.state_machines.end(),
                            [&](const StateMachineConfig& c) { return c.name == s.machine; });
      if (m == config.state_machines.end()) return std::nullopt;  // the reader refuses this already
      const StateMachineSpec& spec = m->spec;
      n.table = spec.table;
      n.named_by = "table = \"" + spec.table + "\" of [[state_machine]] \"" + m->name + "\" (" + m->where + ")";
      const std::string of = " of state machine \"" + m->name + "\" at " + m->where;
      n.columns = {{spec.key_column, "key_column" + of, Use::kAny}, {spec.state_column, "state_column" + of, Use::kText}};
      if (!spec.version_column.empty()) n.columns.push_back({spec.version_column, "version_column" + of, Use::kNumber});
      AddColumns(s.columns, "also_set", n.columns);
      return n;
    }
    case StepConfig::Kind::kSql: return std::nullopt;
  }
  return std::nullopt;
}

// The statements EXPLAIN can compile without running on every engine idem
// has; anything else (a CALL, say) is left to run time.
bool Explainable(std::string_view sql) {
  const size_t start = sql.find_first_not_of(" \t\r\n(");
  if (start == std::string_view::npos) return false;
  size_t end = start;
  while (end < sql.size() && std::isalpha(static_cast<unsigned char>(sql[end]))) ++end;
  std::string word(sql.substr(start, end - start));
  for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return word == "SELECT" || word == "INSERT" || word == "UPDATE" || word == "DELETE" || word == "REPLACE";
}

// A value of the kind the step will bind: what the engine infers parameter
// types from. A payload field's type is only known per message: NULL.
Value SampleOf(const ValueSource& v) {
  switch (v.kind) {
    case ValueSource::Kind::kInt:
    case ValueSource::Kind::kNowMs: return Value{v.number};
    case ValueSource::Kind::kText:
    case ValueSource::Kind::kIdempotencyKey: return Value{v.text};
    case ValueSource::Kind::kField:
    case ValueSource::Kind::kMinusField: break;
  }
  return Value{nullptr};
}

class Checker {
 public:
  explicit Checker(StoreTx& tx) : tx_(tx) {}

  // A problem found is added to problems(); the Status is for a store that cannot be read.
  Status Check(const TableNeed& need) {
    auto described = Describe(need.table);
    if (!described.ok()) return described.status();
    const std::optional<std::vector<TableColumn>>& table = **described;
    if (!table) {
      problems_.push_back(need.where + ": " + need.label + ": table \"" + need.table +
                          "\" does not exist in the store: create it (a CREATE TABLE IF NOT EXISTS in [store] "
                          "setup_sql runs before this check) or correct " + need.named_by);
      return Status::OK();
    }
    for (const ColumnNeed& c : need.columns) {
      auto found = std::find_if(table->begin(), table->end(), [&](const TableColumn& t) { return SameName(t.name, c.column); });
      if (found == table->end()) {
        problems_.push_back(need.where + ": " + need.label + ": table \"" + need.table + "\" has no column \"" +
                            c.column + "\" (" + c.role + "); its columns are " + ColumnList(*table) + ": correct " +
                            c.role + " or add the column");
      } else if (!Serves(found->kind, c.use)) {
        problems_.push_back(need.where + ": " + need.label + ": column \"" + found->name + "\" of table \"" +
                            need.table + "\" (" + c.role + ") is " + found->declared_type + "; it must be " +
                            WhatItMustBe(c.use) + ": change the column's type or name another column");
      }
    }
    return Status::OK();
  }

  // In a transaction of its own, rolled back: a statement that fails to
  // compile aborts a PostgreSQL transaction, and a savepoint would not help
  // when the failure comes while preparing, before the deferred SAVEPOINT is
  // sent (store/postgres/pg_conn.cc).
  Status CheckStatement(Store& store, const StepConfig& s, const std::string& label) {
    if (!Explainable(s.sql)) return Status::OK();
    std::vector<Value> params;
    for (const ValueSource& p : s.params) params.push_back(SampleOf(p));
    auto tx = store.Begin();
    if (!tx.ok()) return tx.status();
    auto compiled = (*tx)->Query("EXPLAIN " + s.sql, params);
    (*tx)->Rollback();
    if (compiled.ok()) return Status::OK();
    if (compiled.status().IsRetryable()) return compiled.status();  // the store, not the statement
    problems_.push_back(s.where + ": " + label + ": the statement does not compile against the store (" +
                        compiled.status().message() + "): correct sql = \"" + s.sql +
                        "\" or create the tables and columns it names (in [store] setup_sql)");
    return Status::OK();
  }

  const std::vector<std::string>& problems() const { return problems_; }

 private:
  Result<const std::optional<std::vector<TableColumn>>*> Describe(const std::string& table) {
    auto it = tables_.find(table);
    if (it == tables_.end()) {
      auto d = tx_.DescribeTable(table);
      if (!d.ok()) return d.status();
      it = tables_.emplace(table, std::move(*d)).first;
    }
    return &it->second;
  }

  StoreTx& tx_;
  std::map<std::string, std::optional<std::vector<TableColumn>>> tables_;
  std::vector<std::string> problems_;
};

}  // namespace

Status CheckDeclaredSchema(const ServiceConfig& config, Store& store) {
  bool any = false;
  for (const ConsumerConfig& k : config.consumers) any |= !k.handlers.empty();
  if (!any) return Status::OK();
  auto tx = store.Begin();
  if (!tx.ok()) return tx.status();
  Checker checker(**tx);
  std::vector<std::pair<const StepConfig*, std::string>> statements;  // compiled after the tables are read
  for (const ConsumerConfig& k : config.consumers)
    for (const DeclaredHandler& h : k.handlers)
      for (size_t i = 0; i < h.steps.size(); ++i) {
        const StepConfig& s = h.steps[i];
        const std::string label =
            "step " + std::to_string(i + 1) + " of topic \"" + h.topic + "\" (" + StepKindName(s.kind) + ")";
        if (s.kind == StepConfig::Kind::kSql) {
          statements.emplace_back(&s, label);
        } else if (auto need = NeedOf(config, s, label)) {
          IDEM_RETURN_IF_ERROR(checker.Check(*need));
        }
      }
  (*tx)->Rollback();
  for (const auto& [step, label] : statements) IDEM_RETURN_IF_ERROR(checker.CheckStatement(store, *step, label));
  if (checker.problems().empty()) return Status::OK();
  std::string all;
  for (const std::string& p : checker.problems()) all += (all.empty() ? "" : "\n") + p;
  return Status::InvalidArgument(all);
}

}  // namespace idem::service
