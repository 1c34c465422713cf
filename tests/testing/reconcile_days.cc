#include "testing/reconcile_days.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <vector>

#include "payments/schema.h"
#include "testing/incident_ledger.h"
#include "testing/test_util.h"

namespace idem::testing {
namespace {

constexpr int64_t kOpening = 100'000;  // each account's balance before day 1

struct Flow {
  const char* biz_no;
  const char* user;
  int64_t cents;  // as the balance moves: a charge is negative
  int64_t at_ms;
};

struct Day {
  const char* date;  // the statement's day, +08:00
  const char* next;
  std::vector<Flow> flows;  // what the consumer wrote that day
  const char* statement;
};

const Day kDays[] = {
    {"2026-10-01",
     "2026-10-02",
     {{"T010", "u1", -4'200, 1'790'820'000'000},  // 10:00:00, and the bank charged both
      {"T010", "u1", -4'200, 1'790'820'020'000},
      {"T011", "u2", -1'500, 1'790'823'600'000},  // 11:00:00, redelivered: the bank charged once
      {"T011", "u2", -1'500, 1'790'823'630'000},
      {"T013", "u2", -500, 1'790'827'200'000},
      {"T012", "u1", -1'000, 1'790'869'800'000}},  // 23:50: the bank books it after midnight
     "biz_no,amount,time\n"
     "T010,42.00,2026-10-01T10:00:01+08:00\n"
     "T010,42.00,2026-10-01T10:00:21+08:00\n"
     "T011,15.00,2026-10-01T11:00:01+08:00\n"
     "T013,5.00,2026-10-01T12:00:01+08:00\n"},
    {"2026-10-02",
     "2026-10-03",
     {{"T020", "u1", -3'000, 1'790'902'800'000},  // 09:00:00, redelivered
      {"T020", "u1", -3'000, 1'790'902'840'000},
      {"T021", "u2", -800, 1'790'920'800'000}},
     "biz_no,amount,time\n"
     "T012,10.00,2026-10-02T00:20:00+08:00\n"
     "T020,30.00,2026-10-02T09:00:05+08:00\n"
     "T021,8.00,2026-10-02T14:00:02+08:00\n"},
    {"2026-10-03",
     "2026-10-04",
     {{"T030", "u1", -2'000, 1'790'992'800'000}},
     "biz_no,amount,time\n"
     "T030,20.00,2026-10-03T10:00:03+08:00\n"},
};

class ThreeDays {
 public:
  ThreeDays(Store& store, const std::string& url, std::string idem) : store_(store), idem_(std::move(idem)) {
    std::ofstream(dir_.File("ledger.toml")) << IncidentLedgerToml(url);
  }

  void Setup() {
    ASSERT_TRUE(payments::CreateSchema(store_, payments::SchemaVariant::kIncident).ok());
    Write({}, {{"u1", kOpening}, {"u2", kOpening}});
  }

  // The consumer's writes of one day: each entry with its balance move.
  void Book(const std::vector<Flow>& flows) { Write(flows, {}); }

  // The daily job of docs/operations.md, word for word: the dry run, then --apply.
  ProcessResult Run(const Day& day, bool apply) {
    const std::string statement = dir_.File(std::string("bank-") + day.date + ".csv");
    std::ofstream(statement) << day.statement;
    std::vector<std::string> argv{"/usr/bin/env",
                                  "-u",
                                  "IDEM_OPERATOR",
                                  idem_,
                                  "reconcile",
                                  "--ledger",
                                  dir_.File("ledger.toml"),
                                  "--statement",
                                  statement,
                                  "--since",
                                  std::string(day.date) + "T00:00:00+08:00",
                                  "--until",
                                  std::string(day.next) + "T00:00:00+08:00"};
    if (apply) argv.insert(argv.end(), {"--apply", "--reason", std::string("daily reconciliation ") + day.date});
    ProcessResult r = RunProcess(argv);
    std::cout << "---- " << day.date << (apply ? " --apply" : " dry run") << " (exit " << r.exit_code << ")\n"
              << r.out << r.err << std::flush;  // flushed: a child started later would print it again
    return r;
  }

  int64_t Int(const std::string& sql) { return QueryInt(store_, sql); }
  int64_t Balance(const char* user) {
    return Int(std::string("SELECT balance_cents FROM pay_accounts WHERE user_id = '") + user + "'");
  }
  int64_t Entries() { return Int("SELECT COUNT(*) FROM pay_account_flows WHERE biz_no NOT LIKE '%:reversal:%'"); }
  int64_t Reversals() { return Int("SELECT COUNT(*) FROM pay_account_flows WHERE biz_no LIKE '%:reversal:%'"); }
  int64_t Reversal(const char* key) {
    return Int(std::string("SELECT COALESCE(SUM(amount_cents), 0) FROM pay_account_flows WHERE biz_no = '") + key +
               "'");
  }
  int64_t Decisions(const char* key, const char* decision) {
    return Int(std::string("SELECT COUNT(*) FROM idem_reconcile_decisions WHERE business_key = '") + key +
               "/PAY_DEDUCT' AND copy_ordinal = 2 AND decision = '" + decision + "'");
  }

 private:
  void Write(const std::vector<Flow>& flows, const std::vector<std::pair<const char*, int64_t>>& accounts) {
    auto tx = store_.Begin();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    for (const auto& [user, cents] : accounts)
      ASSERT_TRUE((*tx)->Exec("INSERT INTO pay_accounts (user_id, balance_cents, opening_cents) VALUES (?, ?, ?)",
                              {std::string(user), cents, cents})
                      .ok());
    for (const Flow& f : flows) {
      ASSERT_TRUE((*tx)->Exec("INSERT INTO pay_account_flows (biz_no, type, user_id, amount_cents, created_at_ms) "
                              "VALUES (?, 'PAY_DEDUCT', ?, ?, ?)",
                              {std::string(f.biz_no), std::string(f.user), f.cents, f.at_ms})
                      .ok());
      ASSERT_TRUE((*tx)->Exec("UPDATE pay_accounts SET balance_cents = balance_cents + ? WHERE user_id = ?",
                              {f.cents, std::string(f.user)})
                      .ok());
    }
    ASSERT_TRUE((*tx)->Commit().ok());
  }

  Store& store_;
  std::string idem_;
  TempDir dir_;
};

bool Has(const ProcessResult& r, const std::string& text) { return r.out.find(text) != std::string::npos; }

}  // namespace

void RunThreeDaysOfReconciliation(Store& store, const std::string& url, const std::string& idem_path) {
  ThreeDays days(store, url, idem_path);
  ASSERT_NO_FATAL_FAILURE(days.Setup());

  // Day 1.
  ASSERT_NO_FATAL_FAILURE(days.Book(kDays[0].flows));
  ProcessResult dry = days.Run(kDays[0], false);
  EXPECT_EQ(dry.exit_code, 1) << dry.err;
  EXPECT_TRUE(Has(dry, "T010/PAY_DEDUCT  account u1  -42.00 x2  (bank: 2 movements)")) << dry.out;
  EXPECT_TRUE(Has(dry, "held: the bank shows this charge too")) << dry.out;
  EXPECT_TRUE(Has(dry, "open: --apply reverses it as T011:reversal:2 (15.00)")) << dry.out;
  EXPECT_TRUE(Has(dry, "Against the statement: 1 mismatch\n  missing at bank    T012")) << dry.out;
  EXPECT_EQ(days.Reversals(), 0) << "a dry run writes nothing";

  ProcessResult day1 = days.Run(kDays[0], true);
  EXPECT_EQ(day1.exit_code, 1) << day1.err;  // the held charge and T012 need a person
  EXPECT_TRUE(Has(day1, "reversed now: T011:reversal:2 (15.00)")) << day1.out;
  EXPECT_EQ(days.Entries(), 6) << "nothing is deleted";
  EXPECT_EQ(days.Reversals(), 1);
  EXPECT_EQ(days.Reversal("T011:reversal:2"), 1'500);
  EXPECT_EQ(days.Reversal("T010:reversal:2"), 0) << "the bank charged T010 twice: the ledger is right";
  EXPECT_EQ(days.Balance("u1"), kOpening - 2 * 4'200 - 1'000);
  EXPECT_EQ(days.Balance("u2"), kOpening - 1'500 - 500);
  EXPECT_EQ(days.Decisions("T010", "held"), 1);
  EXPECT_EQ(days.Decisions("T011", "reversed"), 1);
  EXPECT_EQ(days.Int("SELECT COUNT(*) FROM idem_reconcile_decisions WHERE business_key = 'T010/PAY_DEDUCT' AND "
                     "bank_movements = 2 AND statement LIKE '%bank-2026-10-01.csv' AND statement_period = "
                     "'2026-09-30T16:00:00.000Z to 2026-10-01T16:00:00.000Z'"),
            1);

  // Day 2: T010's movements are not on this statement; day 1's hold stands.
  ASSERT_NO_FATAL_FAILURE(days.Book(kDays[1].flows));
  dry = days.Run(kDays[1], false);
  EXPECT_EQ(dry.exit_code, 1) << dry.err;  // T020's second copy is open
  EXPECT_TRUE(Has(dry, "held before: by ")) << dry.out;
  EXPECT_TRUE(Has(dry, "open: --apply reverses it as T020:reversal:2 (30.00)")) << dry.out;
  EXPECT_TRUE(Has(dry, "Against the statement: every key matches")) << dry.out;  // T012 arrived

  ProcessResult day2 = days.Run(kDays[1], true);
  EXPECT_EQ(day2.exit_code, 3) << day2.err;
  EXPECT_TRUE(Has(day2, "reversed now: T020:reversal:2 (30.00)")) << day2.out;
  EXPECT_TRUE(Has(day2, "reversed before: T011:reversal:2")) << day2.out;
  EXPECT_EQ(days.Reversal("T010:reversal:2"), 0) << "day 2 must not reverse the charge the bank made on day 1";
  EXPECT_EQ(days.Entries(), 9);
  EXPECT_EQ(days.Reversals(), 2);
  EXPECT_EQ(days.Reversal("T020:reversal:2"), 3'000);
  EXPECT_EQ(days.Balance("u1"), kOpening - 2 * 4'200 - 1'000 - 3'000);
  EXPECT_EQ(days.Balance("u2"), kOpening - 1'500 - 500 - 800);
  EXPECT_EQ(days.Decisions("T010", "held"), 1) << "a hold is recorded once";
  EXPECT_EQ(days.Decisions("T020", "reversed"), 1);

  // Day 3: clean.
  ASSERT_NO_FATAL_FAILURE(days.Book(kDays[2].flows));
  dry = days.Run(kDays[2], false);
  EXPECT_EQ(dry.exit_code, 0) << dry.out << dry.err;
  ProcessResult day3 = days.Run(kDays[2], true);
  EXPECT_EQ(day3.exit_code, 0) << day3.out << day3.err;
  EXPECT_TRUE(Has(day3, "nothing left to reverse, nothing was changed")) << day3.out;
  EXPECT_EQ(days.Entries(), 10);
  EXPECT_EQ(days.Reversals(), 2);
  EXPECT_EQ(days.Balance("u1"), kOpening - 2 * 4'200 - 1'000 - 3'000 - 2'000);
  EXPECT_EQ(days.Balance("u2"), kOpening - 1'500 - 500 - 800);
  EXPECT_EQ(days.Int("SELECT COUNT(*) FROM idem_reconcile_decisions"), 3);
  EXPECT_EQ(days.Int("SELECT COUNT(*) FROM idem_reconcile_audit"), 2);
}

}  // namespace idem::testing
