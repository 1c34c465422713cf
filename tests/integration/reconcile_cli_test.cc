// `idem reconcile` run as the daily job would, on a SQLite copy of the
// payments ledger after the double-charge incident: the report, the exit codes
// a job alerts on, one reversal that restores the balance, nothing deleted,
// nothing more on the next run, and an audit row naming who applied it as that
// was established (an operator's secret, or the OS account), never a typed name.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "console/secret_hash.h"
#include "integration/run_idem.h"
#include "testing/incident_ledger.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using namespace idem::testing;

class ReconcileCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore(Db(), {}, Env::Default());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE(SeedIncidentLedger(**store).ok());
    Write("ledger.toml", IncidentLedgerToml("sqlite:" + Db()));
    Write("bank.csv", IncidentStatementCsv());
    auto alice = console::HashSecret("alice-secret", console::kMinHashIterations);
    auto vera = console::HashSecret("vera-read-only", console::kMinHashIterations);
    ASSERT_TRUE(alice.ok() && vera.ok());
    Write("run.toml", "[broker]\nurl = \"queue:" + dir_.File("q.db") + "\"\n[store]\nurl = \"sqlite:" + Db() +
                          "\"\n[console]\n[[console.operator]]\nname = \"alice\"\nrole = \"operator\"\n"
                          "secret_hash = \"" + *alice + "\"\n[[console.operator]]\nname = \"vera\"\n"
                          "secret_hash = \"" + *vera + "\"\n[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\n");
  }

  std::string Db() const { return dir_.File("pay.db"); }
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_.File(name)) << text; }
  std::string Read(const std::string& name) {
    std::ifstream in(dir_.File(name));
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  ProcessResult Reconcile(std::vector<std::string> extra) {
    std::vector<std::string> args{"reconcile", "--ledger", dir_.File("ledger.toml")};
    args.insert(args.end(), extra.begin(), extra.end());
    return Idem(args);
  }
  // reconcile EXTRA with the environment changed by `env` ("NAME=VALUE", "-u NAME").
  ProcessResult ReconcileWith(std::vector<std::string> env, std::vector<std::string> extra) {
    std::vector<std::string> args{"/usr/bin/env"}, sets;
    for (const std::string& e : env) {
      if (e.rfind("-u ", 0) == 0) {
        args.insert(args.end(), {"-u", e.substr(3)});  // env takes its options before NAME=VALUE
      } else {
        sets.push_back(e);
      }
    }
    args.insert(args.end(), sets.begin(), sets.end());
    args.insert(args.end(), {IDEM_CLI_PATH, "reconcile", "--ledger", dir_.File("ledger.toml")});
    args.insert(args.end(), extra.begin(), extra.end());
    return RunProcess(args);
  }
  ProcessResult AsAlice(std::vector<std::string> extra) {
    return ReconcileWith({"IDEM_OPERATOR=alice", "IDEM_OPERATOR_SECRET=alice-secret"}, std::move(extra));
  }

  int64_t Sql(const std::string& sql) {
    auto store = OpenSqliteStore(Db(), {}, Env::Default());
    EXPECT_TRUE(store.ok());
    return store.ok() ? QueryInt(**store, sql) : -1;
  }
  int64_t Balance(const std::string& user) {
    return Sql("SELECT balance_cents FROM pay_accounts WHERE user_id = '" + user + "'");
  }
  int64_t Flows() { return Sql("SELECT COUNT(*) FROM pay_account_flows"); }

  TempDir dir_;
};

TEST_F(ReconcileCliTest, ADryRunReportsTheDoubleChargeAndEachMismatchAndChangesNothing) {
  ProcessResult r = Reconcile({"--statement", dir_.File("bank.csv")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("DRY RUN: nothing was changed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("P20260928001/PAY_DEDUCT  account 10086  -199.00 x2  (bank: 1 movement)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("copy 2  2026-09-28T02:00:29.000Z  open: --apply reverses it as P20260928001:reversal:2"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("amount differs     P20260928002             ledger 50.00        bank 55.00"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("missing at bank    P20260928003"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("missing in ledger  P20260928004"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Result: exit 1: 4 findings need a person"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("4 finding(s) of pay_account_flows need a person (dry run"), std::string::npos) << r.err;
  EXPECT_EQ(Flows(), kIncidentFlows);
  EXPECT_EQ(Balance("10086"), kIncidentBalance10086);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM sqlite_master WHERE name = 'idem_reconcile_audit'"), 0);

  ProcessResult j = Reconcile({"--statement", dir_.File("bank.csv"), "--json"});
  EXPECT_EQ(j.exit_code, 1);
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["mode"], "dry_run");
  ASSERT_EQ(doc["duplicates"].size(), 1u);
  EXPECT_EQ(doc["duplicates"][0]["key"]["biz_no"], "P20260928001");
  EXPECT_EQ(doc["duplicates"][0]["amount_minor"], -19900);
  EXPECT_EQ(doc["duplicates"][0]["extra_copies"][0]["state"], "open");
  ASSERT_EQ(doc["mismatches"].size(), 3u);
  EXPECT_EQ(doc["mismatches"][0]["kind"], "amount_differs");
  EXPECT_EQ(doc["mismatches"][0]["bank"], "55.00");
  EXPECT_EQ(doc["exit_code"], 1);
}

TEST_F(ReconcileCliTest, ApplyReversesTheSecondChargeOnceAndTheNextRunIsClean) {
  ProcessResult r = AsAlice({"--apply", "--config", dir_.File("run.toml"), "--reason", "incident 2026-09-28",
                             "--metrics-file", dir_.File("reconcile.prom")});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("APPLIED by alice"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reversed now: P20260928001:reversal:2 (199.00)"), std::string::npos) << r.out;
  EXPECT_EQ(Balance("10086"), kRestoredBalance10086);
  EXPECT_EQ(Balance("10010"), kIncidentBalance10010);
  EXPECT_EQ(Flows(), kIncidentFlows + 1);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM pay_account_flows WHERE biz_no = 'P20260928001' AND amount_cents = -19900"), 2);
  EXPECT_EQ(Sql("SELECT amount_cents FROM pay_account_flows WHERE biz_no = 'P20260928001:reversal:2'"), 19900);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_reconcile_audit WHERE operator = 'alice' AND reason = 'incident "
                "2026-09-28 [operator secret]' AND reversal_key = 'P20260928001:reversal:2' AND amount = 19900"),
            1);
  const std::string metrics = Read("reconcile.prom");
  EXPECT_NE(metrics.find("idem_reconcile_reversals_written{ledger=\"pay_account_flows\"} 1\n"), std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("idem_reconcile_unresolved{ledger=\"pay_account_flows\"} 0\n"), std::string::npos);
  EXPECT_NE(metrics.find("# TYPE idem_reconcile_last_run_duration_seconds gauge"), std::string::npos);

  ProcessResult again =
      AsAlice({"--apply", "--config", dir_.File("run.toml"), "--metrics-file", dir_.File("reconcile.prom")});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("reversed before: P20260928001:reversal:2"), std::string::npos) << again.out;
  EXPECT_EQ(Balance("10086"), kRestoredBalance10086);
  EXPECT_EQ(Flows(), kIncidentFlows + 1);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_reconcile_audit"), 1);
  EXPECT_NE(Read("reconcile.prom")
                .find("idem_reconcile_extra_copies{ledger=\"pay_account_flows\",state=\"reversed_"
                      "before\"} 1\n"),
            std::string::npos);

  // The statement still disagrees elsewhere: that needs a person, and says so.
  EXPECT_EQ(Reconcile({"--statement", dir_.File("bank.csv")}).exit_code, 1);
}

// A wrong secret, a read-only operator or IDEM_OPERATOR without a
// configuration to check it against: --apply is refused and writes nothing.
TEST_F(ReconcileCliTest, ApplyIsRefusedWhenTheOperatorIsNotEstablished) {
  for (const std::vector<std::string>& env : std::vector<std::vector<std::string>>{
           {"IDEM_OPERATOR=alice", "IDEM_OPERATOR_SECRET=guess"},
           {"IDEM_OPERATOR=alice", "-u IDEM_OPERATOR_SECRET"},
           {"IDEM_OPERATOR=vera", "IDEM_OPERATOR_SECRET=vera-read-only"}}) {
    ProcessResult r = ReconcileWith(env, {"--apply", "--config", dir_.File("run.toml")});
    EXPECT_EQ(r.exit_code, 2) << env[0] << " " << env[1] << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("nothing was changed"), std::string::npos) << r.err;
  }
  ProcessResult no_config = AsAlice({"--apply"});
  EXPECT_EQ(no_config.exit_code, 2);
  EXPECT_NE(no_config.err.find("pass --config FILE"), std::string::npos) << no_config.err;
  EXPECT_NE(ReconcileWith({"IDEM_OPERATOR=alice", "IDEM_OPERATOR_SECRET=guess"},
                          {"--apply", "--config", dir_.File("run.toml")})
                .err.find("IDEM_OPERATOR_SECRET does not match"),
            std::string::npos);
  EXPECT_EQ(Flows(), kIncidentFlows);
  EXPECT_EQ(Balance("10086"), kIncidentBalance10086);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM sqlite_master WHERE name = 'idem_reconcile_audit'"), 0);
  // A dry run needs no identity: it changes nothing.
  EXPECT_EQ(ReconcileWith({"IDEM_OPERATOR=alice", "IDEM_OPERATOR_SECRET=guess"}, {}).exit_code, 1);
}

// Without IDEM_OPERATOR the OS account applies, recorded as one; a name in
// IDEM_ACTOR or USER is not an identity.
TEST_F(ReconcileCliTest, WithoutAnOperatorTheOsAccountIsAudited) {
  const passwd* pw = getpwuid(geteuid());
  ASSERT_NE(pw, nullptr);
  ProcessResult r = ReconcileWith({"-u IDEM_OPERATOR", "IDEM_ACTOR=mallory", "USER=mallory"},
                                  {"--apply", "--reason", "incident 2026-09-28"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find(std::string("APPLIED by ") + pw->pw_name), std::string::npos) << r.out;
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_reconcile_audit WHERE operator = '" + std::string(pw->pw_name) +
                "' AND reason = 'incident 2026-09-28 [os account (uid " + std::to_string(geteuid()) + ")]'"),
            1);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_reconcile_audit WHERE operator = 'mallory'"), 0);
}

// The statement covers 10:00 to 10:10 (+08:00): P20260928003, paid at 10:30,
// is not "missing at the bank" — it is on tomorrow's statement; and the
// bank's row for P20260928004 at 11:00 lies outside the period on the
// statement's side: not compared either.
TEST_F(ReconcileCliTest, OnlyEntriesInTheStatementsPeriodAreCompared) {
  ProcessResult r = Reconcile({"--statement", dir_.File("bank.csv"), "--since", "2026-09-28T10:00:00+08:00", "--until",
                               "2026-09-28T10:10:00+08:00"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("compared with entries from 2026-09-28T02:00:00.000Z to 2026-09-28T02:10:00.000Z"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("P20260928003"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 row outside the period matched no entry (not compared)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Against the statement: 1 mismatch\n  amount differs     P20260928002"), std::string::npos)
      << r.out;
  // The double charge is found whatever the period.
  EXPECT_NE(r.out.find("P20260928001/PAY_DEDUCT"), std::string::npos) << r.out;

  EXPECT_EQ(Reconcile({"--statement", dir_.File("bank.csv"), "--since", "2026-09-28T10:00:00"}).exit_code, 2);
  EXPECT_EQ(Reconcile({"--since", "2026-09-28"}).exit_code, 2);  // no statement
  EXPECT_EQ(
      Reconcile({"--statement", dir_.File("bank.csv"), "--since", "2026-09-29", "--until", "2026-09-28"}).exit_code, 2);
}

// The bank charged P20260928001 twice as well: --apply holds the second copy
// and records why; later runs keep the hold, with or without a statement,
// until a person releases that key by name — audited like a reversal.
TEST_F(ReconcileCliTest, AHeldCopyStaysHeldUntilAPersonReleasesItsKey) {
  Write("bank2.csv", "P20260928001,199.00,2026-09-28T10:00:13+08:00\nP20260928001,199.00,2026-09-28T10:00:30+08:00\n");
  auto decisions = [&](const std::string& decision) {
    return Sql("SELECT COUNT(*) FROM idem_reconcile_decisions WHERE business_key = 'P20260928001/PAY_DEDUCT' AND "
               "copy_ordinal = 2 AND decision = '" + decision + "'");
  };
  ProcessResult held = AsAlice({"--statement", dir_.File("bank2.csv"), "--apply", "--config", dir_.File("run.toml")});
  EXPECT_EQ(held.exit_code, 1) << held.out << held.err;
  EXPECT_NE(held.out.find("(bank: 2 movements)"), std::string::npos) << held.out;
  EXPECT_EQ(decisions("held"), 1);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_reconcile_decisions WHERE operator = 'alice' AND bank_movements = 2 AND "
                "evidence LIKE 'the bank moved it 2 times in statement %bank2.csv%'"),
            1);

  // No statement: no evidence either way, and the hold stands.
  ProcessResult later = AsAlice({"--apply", "--config", dir_.File("run.toml")});
  EXPECT_EQ(later.exit_code, 0) << later.out << later.err;
  EXPECT_NE(later.out.find("held before: by alice at "), std::string::npos) << later.out;
  const auto doc = nlohmann::json::parse(Reconcile({"--json"}).out);
  const auto& copy = doc["duplicates"][0]["extra_copies"][0];
  EXPECT_EQ(copy["state"], "held_before");
  EXPECT_EQ(copy["held_before"]["operator"], "alice");
  EXPECT_EQ(doc["exit_code"], 0);
  EXPECT_EQ(Flows(), kIncidentFlows);
  EXPECT_EQ(Balance("10086"), kIncidentBalance10086);

  ProcessResult typo = AsAlice({"--apply", "--config", dir_.File("run.toml"), "--release-hold", "P20260928009"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("--release-hold P20260928009: no copy of that key"), std::string::npos) << typo.err;
  EXPECT_EQ(Reconcile({"--release-hold", "P20260928001"}).exit_code, 2) << "a release is made with --apply";
  EXPECT_EQ(decisions("released"), 0);
  EXPECT_EQ(Flows(), kIncidentFlows);

  ProcessResult released = AsAlice({"--apply", "--config", dir_.File("run.toml"), "--release-hold", "P20260928001",
                                    "--reason", "bank refunded the second charge"});
  EXPECT_EQ(released.exit_code, 3) << released.out << released.err;
  EXPECT_NE(released.out.find("reversed now: P20260928001:reversal:2 (199.00)"), std::string::npos) << released.out;
  EXPECT_EQ(decisions("released"), 1);
  EXPECT_EQ(decisions("reversed"), 1);
  EXPECT_EQ(Sql("SELECT COUNT(*) FROM idem_reconcile_decisions WHERE decision = 'released' AND operator = 'alice' AND "
                "evidence LIKE 'released by alice (bank refunded the second charge)%'"),
            1);
  EXPECT_EQ(Balance("10086"), kRestoredBalance10086);
  EXPECT_EQ(Flows(), kIncidentFlows + 1);
}

TEST_F(ReconcileCliTest, FlagsDescribeTheLedgerWithoutAFile) {
  ProcessResult r =
      Idem({"reconcile", "--store", "sqlite:" + Db(), "--table", "pay_account_flows", "--key-columns", "biz_no,type",
            "--amount-column", "amount_cents", "--account-column", "user_id", "--where", "type=PAY_DEDUCT", "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["duplicates"].size(), 1u);
  // Without a time column there is no period to compare by.
  ProcessResult period = Idem({"reconcile", "--store", "sqlite:" + Db(), "--table", "pay_account_flows",
                               "--key-columns", "biz_no,type", "--amount-column", "amount_cents", "--account-column",
                               "user_id", "--statement", dir_.File("bank.csv"), "--since", "2026-09-28"});
  EXPECT_EQ(period.exit_code, 2);
  EXPECT_NE(period.err.find("time column"), std::string::npos) << period.err;
}

TEST_F(ReconcileCliTest, BadInputIsAUsageErrorOrAFailureAndChangesNothing) {
  ProcessResult bad_name = Reconcile({"--table", "pay_account_flows; DROP TABLE pay_accounts", "--apply"});
  EXPECT_EQ(bad_name.exit_code, 2);
  EXPECT_NE(bad_name.err.find("is not a plain SQL identifier"), std::string::npos) << bad_name.err;
  EXPECT_EQ(Reconcile({"--bank-sign", "sideways"}).exit_code, 2);
  EXPECT_EQ(Reconcile({"--where", "=x"}).exit_code, 2);

  ProcessResult no_db = Idem({"reconcile", "--ledger", dir_.File("ledger.toml"), "--store", dir_.File("typo.db"),
                              "--metrics-file", dir_.File("failed.prom")});
  EXPECT_EQ(no_db.exit_code, 4);
  EXPECT_NE(no_db.err.find("no SQLite database at"), std::string::npos) << no_db.err;
  EXPECT_NE(Read("failed.prom").find("idem_reconcile_last_run_success{ledger=\"pay_account_flows\"} 0\n"),
            std::string::npos)
      << "a failed run must still tell the monitoring";

  ProcessResult no_table = Reconcile({"--table", "pay_flows"});
  EXPECT_EQ(no_table.exit_code, 4);
  EXPECT_NE(no_table.err.find("cannot read the ledger pay_flows"), std::string::npos) << no_table.err;

  Write("bad.csv", "P1,199.0.0\n");
  ProcessResult bad_csv = Reconcile({"--statement", dir_.File("bad.csv"), "--apply"});
  EXPECT_EQ(bad_csv.exit_code, 4);
  EXPECT_NE(bad_csv.err.find("statement line 1"), std::string::npos) << bad_csv.err;
  EXPECT_EQ(Flows(), kIncidentFlows);
  EXPECT_EQ(Balance("10086"), kIncidentBalance10086);
}

TEST_F(ReconcileCliTest, HelpListsTheExitCodes) {
  ProcessResult r = Idem({"reconcile", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("3 repaired"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4 failed"), std::string::npos) << r.out;
  // Every other command keeps the common footer.
  EXPECT_NE(Idem({"publish", "--help"}).out.find("2 usage error"), std::string::npos);
}

}  // namespace
}  // namespace idem
