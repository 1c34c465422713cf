#include "service/declarative_handler.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <map>
#include <memory>
#include <optional>
#include <span>

#include "core/bounded_text.h"
#include "guards/change_balance_rows.h"
#include "guards/insert_once_rows.h"

namespace idem::service {
namespace {

const char* StepName(StepConfig::Kind k) {
  switch (k) {
    case StepConfig::Kind::kInsertOnce: return "insert_once";
    case StepConfig::Kind::kChangeBalance: return "change_balance";
    case StepConfig::Kind::kTransition: return "transition";
    case StepConfig::Kind::kUpdateIfVersion: return "update_if_version";
    case StepConfig::Kind::kSql: return "sql";
  }
  return "step";
}

// A column value from the message. Numbers bind as integers when they are
// whole and fit in 64 bits, otherwise as their exact text.
Result<Value> Resolve(const ValueSource& v, HandlerContext& ctx) {
  switch (v.kind) {
    case ValueSource::Kind::kInt: return Value{v.number};
    case ValueSource::Kind::kText: return Value{v.text};
    case ValueSource::Kind::kNowMs: return Value{ctx.env.NowMs()};
    case ValueSource::Kind::kIdempotencyKey: return Value{ctx.idempotency_key};
    case ValueSource::Kind::kMinusField: {
      auto i = ctx.payload.Int(v.text);
      if (!i.ok()) return i.status();
      if (*i == INT64_MIN) return Status::InvalidArgument("payload field '" + v.text + "' cannot be negated");
      return Value{-*i};
    }
    case ValueSource::Kind::kField: break;
  }
  switch (ctx.payload.KindOf(v.text)) {
    case Payload::Kind::kMissing: return Status::InvalidArgument("payload has no field '" + v.text + "'");
    case Payload::Kind::kNull: return Value{nullptr};
    case Payload::Kind::kString: {
      auto s = ctx.payload.String(v.text);
      if (!s.ok()) return s.status();
      return Value{*s};
    }
    case Payload::Kind::kNumber: {
      if (auto i = ctx.payload.Int(v.text); i.ok()) return Value{*i};
      return Value{ctx.payload.Text(v.text).value_or("")};
    }
    case Payload::Kind::kBool: return Value{int64_t{ctx.payload.Bool(v.text).value() ? 1 : 0}};
    case Payload::Kind::kArray:
    case Payload::Kind::kObject: break;
  }
  return Status::InvalidArgument("payload field '" + v.text +
                                 "' is an array or an object; a column takes a string, a number or a boolean");
}

Result<int64_t> ResolveInt(const ValueSource& v, HandlerContext& ctx) {
  if (v.kind == ValueSource::Kind::kField) return ctx.payload.Int(v.text);
  auto value = Resolve(v, ctx);
  if (!value.ok()) return value.status();
  if (!std::holds_alternative<int64_t>(*value)) return Status::InvalidArgument("'" + v.text + "' is not a whole number");
  return std::get<int64_t>(*value);
}

Result<std::vector<Column>> ResolveColumns(const ColumnSources& columns, HandlerContext& ctx) {
  std::vector<Column> out;
  for (const auto& [name, source] : columns) {
    auto v = Resolve(source, ctx);
    if (!v.ok()) return v.status();
    out.push_back({name, std::move(*v)});
  }
  return out;
}

// A SELECT is a check: it counts the rows it finds rather than changing any.
bool IsQuery(std::string_view sql) {
  const size_t start = sql.find_first_not_of(" \t\r\n(");
  if (start == std::string_view::npos || sql.size() - start < 6) return false;
  std::string word(sql.substr(start, 6));
  for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return word == "SELECT";
}

Result<int64_t> CountRows(Result<Rows> rows) {
  if (!rows.ok()) return rows.status();
  return static_cast<int64_t>(rows->size());
}

// nullopt: go on with the next step; otherwise the handler's result.
using StepOutcome = std::optional<HandlerResult>;

StepOutcome Stop(StopAs how, const std::string& why) {
  switch (how) {
    case StopAs::kAck: return HandlerResult::Ok(why);
    case StopAs::kRetry: return HandlerResult::Retryable(why);
    case StopAs::kPark: return HandlerResult::Permanent(why);
    case StopAs::kGoOn: return std::nullopt;
  }
  return std::nullopt;
}

class Steps {
 public:
  Steps(DeclaredHandler handler, std::map<std::string, std::shared_ptr<const StateMachineConfig>> configs,
        std::map<std::string, StateMachine> machines)
      : h_(std::move(handler)), configs_(std::move(configs)), machines_(std::move(machines)) {}

  // Every step has a set-based form (so far: insert_once and change_balance).
  bool SetBased() const {
    if (h_.steps.empty()) return false;
    return std::all_of(h_.steps.begin(), h_.steps.end(), [](const StepConfig& s) {
      return s.kind == StepConfig::Kind::kInsertOnce || s.kind == StepConfig::Kind::kChangeBalance;
    });
  }

  // The steps over a batch's messages, one statement per step for all of
  // them, when each message's every row is new and every balance suffices:
  // the common case, since the consumption record already absorbs copies.
  // Anything else — a bad payload, a row already there, a short balance or a
  // missing account, a failed statement — answers with a failure, and the
  // pipeline rolls the set back and runs each message alone through Run, which
  // tells which message hit what. REQUIRES: SetBased().
  std::vector<HandlerResult> RunSet(std::span<HandlerContext* const> all) const {
    std::string done;
    for (size_t i = 0; i < h_.steps.size(); ++i) {
      const StepConfig& s = h_.steps[i];
      const std::string label = "step " + std::to_string(i + 1) + " (" + StepName(s.kind) + ")";
      std::optional<std::string> failed =
          s.kind == StepConfig::Kind::kInsertOnce ? InsertOnceSet(s, all) : ChangeBalanceSet(s, all);
      if (failed)
        return std::vector<HandlerResult>(all.size(),
                                          HandlerResult::Retryable("set-based run fell back: " + label + ": " + *failed));
      done += (done.empty() ? "" : ", ") + std::string(StepName(s.kind));
    }
    return std::vector<HandlerResult>(all.size(), HandlerResult::Ok("applied: " + done));
  }

  HandlerResult Run(HandlerContext& ctx) const {
    std::string done;
    for (size_t i = 0; i < h_.steps.size(); ++i) {
      const StepConfig& s = h_.steps[i];
      const std::string label = "step " + std::to_string(i + 1) + " (" + StepName(s.kind) + ")";
      StepOutcome out = RunStep(s, label, ctx);
      if (out) return *out;
      done += (done.empty() ? "" : ", ") + std::string(StepName(s.kind));
    }
    return HandlerResult::Ok("applied: " + done);
  }

 private:
  StepOutcome RunStep(const StepConfig& s, const std::string& label, HandlerContext& ctx) const {
    switch (s.kind) {
      case StepConfig::Kind::kInsertOnce: return InsertOnceStep(s, label, ctx);
      case StepConfig::Kind::kChangeBalance: return ChangeBalanceStep(s, label, ctx);
      case StepConfig::Kind::kTransition: return TransitionStep(s, label, ctx);
      case StepConfig::Kind::kUpdateIfVersion: return UpdateIfVersionStep(s, label, ctx);
      case StepConfig::Kind::kSql: return SqlStep(s, label, ctx);
    }
    return HandlerResult::Permanent(label + ": unknown step");
  }

  // The set forms of the steps: nullopt when the step applied to every
  // message, otherwise why the set falls back.
  static std::optional<std::string> InsertOnceSet(const StepConfig& s, std::span<HandlerContext* const> all) {
    std::vector<std::vector<Column>> rows;
    rows.reserve(all.size());
    for (HandlerContext* ctx : all) {
      auto row = ResolveColumns(s.columns, *ctx);
      if (!row.ok()) return row.status().ToString();
      rows.push_back(std::move(*row));
    }
    auto n = guards::InsertOnceRows(all.front()->tx, s.table, rows);
    if (!n.ok()) return n.status().ToString();
    if (*n != static_cast<int64_t>(rows.size())) return "a row was already in " + s.table;
    return std::nullopt;
  }

  static std::optional<std::string> ChangeBalanceSet(const StepConfig& s, std::span<HandlerContext* const> all) {
    std::vector<guards::BalanceDelta> deltas;
    deltas.reserve(all.size());
    for (HandlerContext* ctx : all) {
      auto key = Resolve(s.key, *ctx);
      if (!key.ok()) return key.status().ToString();
      auto amount = ResolveInt(s.amount, *ctx);
      if (!amount.ok()) return amount.status().ToString();
      if (*amount <= 0) return "an amount is not positive";
      deltas.push_back({std::move(*key), s.subtract ? -*amount : *amount});
    }
    auto n = guards::ChangeBalances(all.front()->tx, {s.table, s.key_column, s.balance_column}, deltas, s.floor);
    if (!n.ok()) return n.status().ToString();
    if (!n->all()) return "an account in " + s.table + " is missing or would go below " + std::to_string(s.floor);
    return std::nullopt;
  }

  static StepOutcome InsertOnceStep(const StepConfig& s, const std::string& label, HandlerContext& ctx) {
    auto row = ResolveColumns(s.columns, ctx);
    if (!row.ok()) return HandlerResult::FromStatus(row.status(), label);
    auto r = InsertOnce(ctx.tx, s.table, *row);
    if (!r.ok()) return HandlerResult::FromStatus(r.status(), label);
    if (*r == InsertOutcome::kInserted) return std::nullopt;
    return Stop(s.on_already_applied, "already applied: " + s.table + " holds this row (" + label + ")");
  }

  static StepOutcome ChangeBalanceStep(const StepConfig& s, const std::string& label, HandlerContext& ctx) {
    auto key = Resolve(s.key, ctx);
    if (!key.ok()) return HandlerResult::FromStatus(key.status(), label);
    auto amount = ResolveInt(s.amount, ctx);
    if (!amount.ok()) return HandlerResult::FromStatus(amount.status(), label);
    if (*amount <= 0) return HandlerResult::Permanent(label + ": the amount must be positive, found " + std::to_string(*amount));
    const int64_t delta = s.subtract ? -*amount : *amount;
    auto r = ChangeBalance(ctx.tx, {s.table, s.key_column, s.balance_column}, *key, delta, s.floor);
    if (!r.ok()) return HandlerResult::FromStatus(r.status(), label);
    switch (*r) {
      case BalanceChange::kApplied: return std::nullopt;
      case BalanceChange::kInsufficient:
        return HandlerResult::Retryable("insufficient funds: " + s.table + " " + QuotedValue(AsText(*key)) + " cannot go below " +
                                        std::to_string(s.floor) + " by " + std::to_string(*amount) + " (" + label + ")");
      case BalanceChange::kNotFound:
        return HandlerResult::Permanent("no row in " + s.table + " with " + s.key_column + " = " + QuotedValue(AsText(*key)) +
                                        " (" + label + ")");
    }
    return std::nullopt;
  }

  StepOutcome TransitionStep(const StepConfig& s, const std::string& label, HandlerContext& ctx) const {
    const StateMachine& m = machines_.at(s.machine);
    auto key = Resolve(s.key, ctx);
    if (!key.ok()) return HandlerResult::FromStatus(key.status(), label);
    auto also = ResolveColumns(s.columns, ctx);
    if (!also.ok()) return HandlerResult::FromStatus(also.status(), label);
    auto r = m.Move(ctx.tx, *key, s.target, *also);
    if (!r.ok()) return HandlerResult::FromStatus(r.status(), label);
    const std::string what = r->Describe(s.target) + " (" + s.machine + " " + QuotedValue(AsText(*key)) + ", " + label + ")";
    switch (r->outcome) {
      case TransitionResult::Outcome::kApplied: return std::nullopt;
      case TransitionResult::Outcome::kAlreadyInTarget: return HandlerResult::Ok(what);
      case TransitionResult::Outcome::kStale: return Stop(configs_.at(s.machine)->on_stale, what);
      case TransitionResult::Outcome::kTooEarly: return HandlerResult::Retryable(what);
      case TransitionResult::Outcome::kIllegal:
      case TransitionResult::Outcome::kNotFound: return HandlerResult::Permanent(what);
    }
    return std::nullopt;
  }

  static StepOutcome UpdateIfVersionStep(const StepConfig& s, const std::string& label, HandlerContext& ctx) {
    auto key = Resolve(s.key, ctx);
    if (!key.ok()) return HandlerResult::FromStatus(key.status(), label);
    auto version = ResolveInt(s.expected_version, ctx);
    if (!version.ok()) return HandlerResult::FromStatus(version.status(), label);
    auto set = ResolveColumns(s.columns, ctx);
    if (!set.ok()) return HandlerResult::FromStatus(set.status(), label);
    auto r = UpdateIfVersion(ctx.tx, {s.table, s.key_column, s.version_column}, *key, *version, *set);
    if (!r.ok()) return HandlerResult::FromStatus(r.status(), label);
    switch (*r) {
      case VersionedUpdate::kApplied: return std::nullopt;
      case VersionedUpdate::kVersionMoved:
        return Stop(s.on_version_moved, "stale: " + s.table + " " + QuotedValue(AsText(*key)) + " is past version " +
                                            std::to_string(*version) + " (" + label + ")");
      case VersionedUpdate::kNotFound:
        return HandlerResult::Permanent("no row in " + s.table + " with " + s.key_column + " = " + QuotedValue(AsText(*key)) +
                                        " (" + label + ")");
    }
    return std::nullopt;
  }

  static StepOutcome SqlStep(const StepConfig& s, const std::string& label, HandlerContext& ctx) {
    std::vector<Value> params;
    for (const ValueSource& p : s.params) {
      auto v = Resolve(p, ctx);
      if (!v.ok()) return HandlerResult::FromStatus(v.status(), label);
      params.push_back(std::move(*v));
    }
    Result<int64_t> rows = IsQuery(s.sql) ? CountRows(ctx.tx.Query(s.sql, params)) : ctx.tx.Exec(s.sql, params);
    if (!rows.ok()) return HandlerResult::FromStatus(rows.status(), label);
    if (s.expect_rows < 0 || *rows == s.expect_rows) return std::nullopt;
    return Stop(s.on_other_rows, label + (IsQuery(s.sql) ? " found " : " changed ") + std::to_string(*rows) + " row(s), expected " +
                                     std::to_string(s.expect_rows));
  }

  DeclaredHandler h_;
  std::map<std::string, std::shared_ptr<const StateMachineConfig>> configs_;
  std::map<std::string, StateMachine> machines_;
};

}  // namespace

Result<HandlerSpec> MakeDeclaredHandler(const DeclaredHandler& handler,
                                        const std::vector<StateMachineConfig>& machines) {
  std::map<std::string, std::shared_ptr<const StateMachineConfig>> configs;
  std::map<std::string, StateMachine> built;
  for (const StepConfig& s : handler.steps) {
    if (s.kind != StepConfig::Kind::kTransition || built.count(s.machine)) continue;
    auto it = std::find_if(machines.begin(), machines.end(), [&](const auto& m) { return m.name == s.machine; });
    if (it == machines.end())
      return Status::InvalidArgument(s.where + ": no [[state_machine]] named \"" + s.machine + "\"");
    auto m = StateMachine::Create(it->spec);
    if (!m.ok()) return Status::InvalidArgument(it->where + ": " + m.status().message());
    configs.emplace(s.machine, std::make_shared<const StateMachineConfig>(*it));
    built.emplace(s.machine, std::move(*m));
  }
  HandlerSpec spec;
  spec.topic = handler.topic;
  spec.key.fields = handler.key_fields;
  spec.fingerprint_fields = handler.fingerprint_fields;
  auto steps = std::make_shared<const Steps>(handler, std::move(configs), std::move(built));
  spec.fn = [steps](HandlerContext& ctx) { return steps->Run(ctx); };
  if (steps->SetBased())
    spec.batch_fn = [steps](std::span<HandlerContext* const> all) { return steps->RunSet(all); };
  return spec;
}

}  // namespace idem::service
