// One UPDATE for many accounts instead of one round trip per account.
#include "guards/change_balance_rows.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "guards/sql_identifier.h"
#include "store/set_shape.h"

namespace idem::guards {
namespace {

struct KeyTotal {
  Value key;
  int64_t total = 0;
  int64_t lowest = 0;  // the lowest running sum: what the balance must bear on the way
};

// Tells keys apart by type and exact value: 5 and "5" stay two keys (the
// statement may then change one row for both, and the caller falls back).
std::string KeyOf(const Value& v) {
  std::string out(1, static_cast<char>('0' + v.index()));
  if (const auto* d = std::get_if<double>(&v)) {
    char bits[sizeof(double)];
    std::memcpy(bits, d, sizeof bits);
    return out.append(bits, sizeof bits);
  }
  return out + AsText(v);
}

}  // namespace

Result<BalancesChanged> ChangeBalances(SqlTx& tx, const BalanceColumn& where, const std::vector<BalanceDelta>& deltas,
                                       int64_t floor) {
  IDEM_RETURN_IF_ERROR(CheckIdentifiers({where.table, where.key_column, where.balance_column}));
  // Keys in first-seen order, so the statements are the same for the same batch.
  std::vector<KeyTotal> keys;
  std::map<std::string, size_t> index;
  for (const BalanceDelta& d : deltas) {
    if (d.delta == 0) return Status::InvalidArgument("ChangeBalances needs a non-zero delta for every key");
    auto [it, fresh] = index.try_emplace(KeyOf(d.key), keys.size());
    if (fresh) keys.push_back({d.key, 0, 0});
    KeyTotal& k = keys[it->second];
    k.total += d.delta;
    k.lowest = fresh ? k.total : std::min(k.lowest, k.total);
  }
  BalancesChanged out;
  out.keys = static_cast<int64_t>(keys.size());
  const std::string& key = where.key_column;
  const std::string& bal = where.balance_column;
  const std::string when = " WHEN ? THEN " + std::string(tx.Dialect().IntegerParameter());
  // Five parameters a key: kMaxCaseKeys keys stay far below kMaxParameters.
  // A set is padded to its shape with its last key: the repeated WHEN never
  // matches first and the repeated IN entry selects no other row.
  for (size_t start = 0; start < keys.size(); start += kMaxCaseKeys) {
    const size_t end = std::min(keys.size(), start + kMaxCaseKeys);
    const size_t shape = SetShapeAtLeast(end - start);
    std::string change = "CASE " + key, lowest = "CASE " + key;
    std::vector<Value> set_params, check_params, in_params;
    for (size_t n = 0; n < shape; ++n) {
      const KeyTotal& k = keys[std::min(start + n, end - 1)];
      change += when;
      lowest += when;
      set_params.insert(set_params.end(), {k.key, k.total});
      check_params.insert(check_params.end(), {k.key, k.lowest});
      in_params.push_back(k.key);
    }
    std::string sql = "UPDATE " + where.table + " SET " + bal + " = " + bal + " + " + change + " END WHERE " + key +
                      " IN (" + ParameterMarkers(shape) + ") AND " + bal + " + " + lowest + " END >= ?";
    std::vector<Value> params = std::move(set_params);
    params.insert(params.end(), in_params.begin(), in_params.end());
    params.insert(params.end(), check_params.begin(), check_params.end());
    params.emplace_back(floor);
    auto n = tx.Exec(sql, params);
    if (!n.ok()) return n.status();
    out.changed += *n;
  }
  return out;
}

}  // namespace idem::guards
