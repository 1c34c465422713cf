#include "ops/reconcile/ledger_toml.h"

#include <toml++/toml.h>

#include <set>

namespace idem::reconcile {
namespace {

class Section {
 public:
  Section(const toml::table& t, std::string name, const std::string& file)
      : t_(t), name_(std::move(name)), file_(file) {}

  Status CheckKeys(const std::set<std::string>& allowed) const {
    for (auto&& [k, v] : t_)
      if (!allowed.count(std::string(k.str())))
        return Error(v, "unknown key '" + std::string(k.str()) + "' in [" + name_ + "] (known: " + Join(allowed) + ")");
    return Status::OK();
  }

  Status String(const char* key, std::string* out) const {
    const toml::node* n = t_.get(key);
    if (!n) return Status::OK();
    if (!n->is_string()) return Error(*n, name_ + "." + key + " must be a string");
    *out = n->as_string()->get();
    return Status::OK();
  }

  Status Int(const char* key, int* out) const {
    const toml::node* n = t_.get(key);
    if (!n) return Status::OK();
    if (!n->is_integer()) return Error(*n, name_ + "." + key + " must be an integer");
    *out = static_cast<int>(n->as_integer()->get());
    return Status::OK();
  }

  Status Strings(const char* key, std::vector<std::string>* out) const {
    const toml::node* n = t_.get(key);
    if (!n) return Status::OK();
    const toml::array* a = n->as_array();
    if (!a) return Error(*n, name_ + "." + key + " must be an array of strings");
    out->clear();
    for (const toml::node& item : *a) {
      if (!item.is_string()) return Error(item, name_ + "." + key + " must hold strings only");
      out->push_back(item.as_string()->get());
    }
    return Status::OK();
  }

  // { column = "value", other = 3 }: values as text, bound as parameters.
  Status Pairs(const char* key, std::vector<std::pair<std::string, std::string>>* out) const {
    const toml::node* n = t_.get(key);
    if (!n) return Status::OK();
    const toml::table* t = n->as_table();
    if (!t) return Error(*n, name_ + "." + key + " must be a table such as { type = \"PAY_DEDUCT\" }");
    for (auto&& [k, v] : *t) {
      if (v.is_string())
        out->emplace_back(std::string(k.str()), v.as_string()->get());
      else if (v.is_integer())
        out->emplace_back(std::string(k.str()), std::to_string(v.as_integer()->get()));
      else
        return Error(v, name_ + "." + key + "." + std::string(k.str()) + " must be a string or an integer");
    }
    return Status::OK();
  }

  Status Error(const toml::node& n, const std::string& what) const {
    return Status::InvalidArgument(file_ + ":" + std::to_string(n.source().begin.line) + ": " + what);
  }

 private:
  static std::string Join(const std::set<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  }
  const toml::table& t_;
  std::string name_;
  const std::string& file_;
};

}  // namespace

Result<LedgerFile> ParseLedgerToml(std::string_view text, const std::string& file_name) {
  toml::table root;
  try {
    root = toml::parse(text, file_name);
  } catch (const toml::parse_error& e) {
    return Status::InvalidArgument(file_name + ":" + std::to_string(e.source().begin.line) + ": " +
                                   std::string(e.description()));
  }
  const toml::table* rec = root["reconcile"].as_table();
  if (!rec)
    return Status::InvalidArgument(file_name +
                                   " has no [reconcile] section: describe the ledger under "
                                   "[reconcile.ledger] (see docs/operations.md, Reconciliation)");
  LedgerFile out;
  LedgerSpec& s = out.spec;
  const Section top(*rec, "reconcile", file_name);
  IDEM_RETURN_IF_ERROR(top.CheckKeys({"store", "audit_table", "decisions_table", "ledger", "balance"}));
  IDEM_RETURN_IF_ERROR(top.String("store", &out.store));
  IDEM_RETURN_IF_ERROR(top.String("audit_table", &s.audit_table));
  IDEM_RETURN_IF_ERROR(top.String("decisions_table", &s.decisions_table));

  const toml::table* ledger = (*rec)["ledger"].as_table();
  if (!ledger) return Status::InvalidArgument(file_name + " has no [reconcile.ledger] table: it names the ledger");
  const Section l(*ledger, "reconcile.ledger", file_name);
  IDEM_RETURN_IF_ERROR(l.CheckKeys({"table", "key_columns", "amount_column", "account_column", "time_column", "where",
                                    "copy_columns", "amount_unit", "amount_decimals", "bank_sign", "reversal_marker"}));
  IDEM_RETURN_IF_ERROR(l.String("table", &s.table));
  IDEM_RETURN_IF_ERROR(l.Strings("key_columns", &s.key_columns));
  IDEM_RETURN_IF_ERROR(l.String("amount_column", &s.amount_column));
  IDEM_RETURN_IF_ERROR(l.String("account_column", &s.account_column));
  IDEM_RETURN_IF_ERROR(l.String("time_column", &s.time_column));
  IDEM_RETURN_IF_ERROR(l.Pairs("where", &s.where));
  IDEM_RETURN_IF_ERROR(l.Strings("copy_columns", &s.copy_columns));
  IDEM_RETURN_IF_ERROR(l.Int("amount_decimals", &s.amount_decimals));
  IDEM_RETURN_IF_ERROR(l.String("reversal_marker", &s.reversal_marker));
  std::string unit;
  IDEM_RETURN_IF_ERROR(l.String("amount_unit", &unit));
  if (unit == "major")
    s.amount_unit = AmountUnit::kMajor;
  else if (!unit.empty() && unit != "minor")
    return Status::InvalidArgument(file_name +
                                   ": reconcile.ledger.amount_unit is \"minor\" (integer cents) or "
                                   "\"major\" (decimal 199.00), not \"" +
                                   unit + "\"");
  std::string sign;
  IDEM_RETURN_IF_ERROR(l.String("bank_sign", &sign));
  if (sign == "opposite")
    s.bank_sign = BankSign::kOpposite;
  else if (!sign.empty() && sign != "same")
    return Status::InvalidArgument(file_name + ": reconcile.ledger.bank_sign is \"same\" or \"opposite\", not \"" +
                                   sign + "\"");

  if (const toml::table* balance = (*rec)["balance"].as_table()) {
    const Section b(*balance, "reconcile.balance", file_name);
    IDEM_RETURN_IF_ERROR(b.CheckKeys({"table", "key_column", "column"}));
    IDEM_RETURN_IF_ERROR(b.String("table", &s.balance_table));
    IDEM_RETURN_IF_ERROR(b.String("key_column", &s.balance_key_column));
    IDEM_RETURN_IF_ERROR(b.String("column", &s.balance_column));
  }
  return out;
}

}  // namespace idem::reconcile
