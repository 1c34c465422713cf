#include "testing/incident_ledger.h"

#include "payments/schema.h"

namespace idem::testing {

Status SeedIncidentLedger(Store& store) {
  IDEM_RETURN_IF_ERROR(payments::CreateSchema(store, payments::SchemaVariant::kIncident));
  auto tx_or = store.Begin();
  if (!tx_or.ok()) return tx_or.status();
  StoreTx& tx = **tx_or;
  struct Account {
    const char* user;
    int64_t opening, balance;
  };
  for (const Account& a : {Account{"10086", kIncidentOpening10086, kIncidentBalance10086},
                           Account{"10010", 50'000, kIncidentBalance10010}})
    IDEM_RETURN_IF_ERROR(tx.Exec("INSERT INTO pay_accounts (user_id, balance_cents, opening_cents) VALUES (?, ?, ?)",
                                 {std::string(a.user), a.balance, a.opening})
                             .status());
  struct Flow {
    const char *biz_no, *type, *user;
    int64_t cents, at_ms;
  };
  for (const Flow& f : {Flow{"P20260928001", "PAY_DEDUCT", "10086", -19'900, 1'790'560'812'000},  // 10:00:12 +08:00
                        Flow{"P20260928001", "PAY_DEDUCT", "10086", -19'900, 1'790'560'829'000},  // the redelivery
                        Flow{"P20260928002", "PAY_DEDUCT", "10086", -5'000, 1'790'560'980'000},
                        Flow{"P20260928003", "PAY_DEDUCT", "10010", -1'000, 1'790'562'600'000},
                        Flow{"T20260927001", "TOPUP", "10010", 20'000, 1'790'470'800'000}})
    IDEM_RETURN_IF_ERROR(tx.Exec("INSERT INTO pay_account_flows (biz_no, type, user_id, amount_cents, created_at_ms) "
                                 "VALUES (?, ?, ?, ?, ?)",
                                 {std::string(f.biz_no), std::string(f.type), std::string(f.user), f.cents, f.at_ms})
                             .status());
  return tx.Commit();
}

std::string IncidentStatementCsv() {
  return "biz_no,amount,time\n"
         "P20260928001,199.00,2026-09-28T10:00:12+08:00\n"
         "P20260928002,55.00,2026-09-28T10:03:00+08:00\n"
         "P20260928004,12.00,2026-09-28T11:00:00+08:00\n";
}

std::string IncidentLedgerToml(const std::string& store_url) {
  return "[reconcile]\n"
         "store = \"" +
         store_url +
         "\"\n"
         "[reconcile.ledger]\n"
         "table = \"pay_account_flows\"\n"
         "key_columns = [\"biz_no\", \"type\"]\n"
         "amount_column = \"amount_cents\"\n"
         "account_column = \"user_id\"\n"
         "time_column = \"created_at_ms\"\n"
         "where = { type = \"PAY_DEDUCT\" }\n"
         "bank_sign = \"opposite\"\n"
         "[reconcile.balance]\n"
         "table = \"pay_accounts\"\n"
         "key_column = \"user_id\"\n"
         "column = \"balance_cents\"\n";
}

}  // namespace idem::testing
