#include "ops/reconcile/findings.h"

#include <gtest/gtest.h>

namespace idem::reconcile {
namespace {

LedgerSpec Flows() {
  LedgerSpec s;
  s.table = "pay_account_flows";
  s.key_columns = {"biz_no", "type"};
  s.amount_column = "amount_cents";
  s.account_column = "user_id";
  s.time_column = "created_at_ms";
  s.bank_sign = BankSign::kOpposite;
  return s;
}

LedgerEntry Entry(const std::string& biz_no, int64_t amount, const std::string& user = "10086", int64_t t = 0) {
  return {{biz_no, "PAY_DEDUCT"}, amount, user, t};
}

// The incident: P20260928001 charged twice, 17 s apart (copies listed newest first).
TEST(ReconcileFindingsTest, TheDoubleChargeIsOneDuplicateWithItsSecondCopyOpen) {
  Findings f = Analyze(Flows(),
                       {Entry("P20260928001", -19900, "10086", 29'000), Entry("P20260928001", -19900, "10086", 12'000),
                        Entry("P20260928002", -5000)},
                       nullptr);
  EXPECT_EQ(f.entries, 3);
  ASSERT_EQ(f.duplicates.size(), 1u);
  const Duplicate& d = f.duplicates[0];
  EXPECT_EQ(KeyText(d.key), "P20260928001/PAY_DEDUCT");
  EXPECT_EQ(d.account, "10086");
  EXPECT_EQ(d.amount, -19900);
  EXPECT_EQ(d.copies(), 2);
  EXPECT_EQ(d.times_ms, (std::vector<int64_t>{12'000, 29'000}));
  EXPECT_EQ(d.bank_movements, -1);
  ASSERT_EQ(d.extra.size(), 1u);
  EXPECT_EQ(d.extra[0].ordinal, 2);
  EXPECT_EQ(d.extra[0].reversal_key, "P20260928001:reversal:2");
  EXPECT_EQ(d.extra[0].state, CopyState::kOpen);
  EXPECT_TRUE(f.conflicts.empty());
  EXPECT_TRUE(f.mismatches.empty());
}

TEST(ReconcileFindingsTest, AReversalEntryClosesItsCopyAndIsNotItselfADuplicate) {
  Findings f =
      Analyze(Flows(), {Entry("P1", -100), Entry("P1", -100), Entry("P1", -100), Entry("P1:reversal:3", 100)}, nullptr);
  EXPECT_EQ(f.reversals, 1);
  ASSERT_EQ(f.duplicates.size(), 1u);
  ASSERT_EQ(f.duplicates[0].extra.size(), 2u);
  EXPECT_EQ(f.duplicates[0].extra[0].state, CopyState::kOpen);
  EXPECT_EQ(f.duplicates[0].extra[1].state, CopyState::kReversedBefore);
  EXPECT_TRUE(f.conflicts.empty());
}

TEST(ReconcileFindingsTest, EntriesThatDifferAreAConflictNotADuplicate) {
  Findings f =
      Analyze(Flows(), {Entry("P1", -100), Entry("P1", -200), Entry("P2", -5, "a"), Entry("P2", -5, "b")}, nullptr);
  EXPECT_TRUE(f.duplicates.empty());
  ASSERT_EQ(f.conflicts.size(), 2u);
  EXPECT_NE(f.conflicts[0].what.find("-1.00 on 10086"), std::string::npos) << f.conflicts[0].what;
  EXPECT_NE(f.conflicts[0].what.find("-2.00 on 10086"), std::string::npos) << f.conflicts[0].what;
}

TEST(ReconcileFindingsTest, AReversalWithoutACopyToReverseIsAConflict) {
  Findings f = Analyze(Flows(), {Entry("P1", -100), Entry("P1:reversal:2", 100)}, nullptr);
  EXPECT_TRUE(f.duplicates.empty());
  ASSERT_EQ(f.conflicts.size(), 1u);
  EXPECT_NE(f.conflicts[0].what.find("P1:reversal:2"), std::string::npos);
}

TEST(ReconcileFindingsTest, AKeyThatOnlyLooksLikeAReversalIsAnOrdinaryEntry) {
  Findings f =
      Analyze(Flows(), {Entry("P1:reversal:x", -1), Entry("P1:reversal:1", -1), Entry(":reversal:2", -1)}, nullptr);
  EXPECT_EQ(f.reversals, 0);
  EXPECT_TRUE(f.conflicts.empty());
}

TEST(ReconcileFindingsTest, TheStatementIsComparedInBothDirectionsCountingDuplicatesOnce) {
  const std::vector<StatementRow> bank = {
      {"P20260928001", 19900, "10:00:12", 1},  // charged once at the bank, twice in the ledger
      {"P2", 5500, "10:03", 2},                // amount differs
      {"P4", 1200, "11:00", 3},                // missing in the ledger
  };
  Findings f = Analyze(
      Flows(), {Entry("P20260928001", -19900), Entry("P20260928001", -19900), Entry("P2", -5000), Entry("P3", -1000)},
      &bank);
  ASSERT_EQ(f.mismatches.size(), 3u);
  EXPECT_EQ(f.mismatches[0].key, "P2");
  EXPECT_EQ(f.mismatches[0].kind, MismatchKind::kAmountDiffers);
  EXPECT_EQ(*f.mismatches[0].ledger, 5000);  // in the bank's sign
  EXPECT_EQ(*f.mismatches[0].bank, 5500);
  EXPECT_EQ(f.mismatches[1].key, "P3");
  EXPECT_EQ(f.mismatches[1].kind, MismatchKind::kMissingAtBank);
  EXPECT_FALSE(f.mismatches[1].bank.has_value());
  EXPECT_EQ(f.mismatches[2].key, "P4");
  EXPECT_EQ(f.mismatches[2].kind, MismatchKind::kMissingInLedger);
  EXPECT_EQ(f.mismatches[2].bank_time, "11:00");
  ASSERT_EQ(f.duplicates.size(), 1u);
  EXPECT_EQ(f.duplicates[0].bank_movements, 1);
  EXPECT_EQ(f.duplicates[0].extra[0].state, CopyState::kOpen);
}

TEST(ReconcileFindingsTest, ASignMismatchIsAnAmountDifference) {
  LedgerSpec same = Flows();
  same.bank_sign = BankSign::kSame;
  const std::vector<StatementRow> bank = {{"P1", 100, "", 1}};
  Findings f = Analyze(same, {Entry("P1", -100)}, &bank);
  ASSERT_EQ(f.mismatches.size(), 1u);
  EXPECT_EQ(f.mismatches[0].kind, MismatchKind::kAmountDiffers);
}

// The bank charged the customer twice too: the ledger is right, and a reversal
// would hide a refund that is owed.
TEST(ReconcileFindingsTest, CopiesTheBankChargedAsWellAreHeld) {
  const std::vector<StatementRow> bank = {{"P1", 100, "", 1}, {"P1", 100, "", 2}};
  Findings f = Analyze(Flows(), {Entry("P1", -100), Entry("P1", -100)}, &bank);
  ASSERT_EQ(f.duplicates.size(), 1u);
  EXPECT_EQ(f.duplicates[0].bank_movements, 2);
  EXPECT_EQ(f.duplicates[0].extra[0].state, CopyState::kHeld);
}

// A daily statement against years of ledger: yesterday's entries are not
// "missing at the bank" today.
TEST(ReconcileFindingsTest, OnlyEntriesInsideTheStatementsPeriodAreCompared) {
  const std::vector<StatementRow> bank = {{"P2", 100, "", 1}};
  Findings f = Analyze(Flows(), {Entry("P1", -100, "u", 50), Entry("P2", -100, "u", 150), Entry("P3", -100, "u", 200)},
                       &bank, Period{100, 200});
  EXPECT_TRUE(f.mismatches.empty()) << f.mismatches.size();
  Findings all = Analyze(Flows(), {Entry("P1", -100, "u", 50), Entry("P2", -100, "u", 150)}, &bank);
  ASSERT_EQ(all.mismatches.size(), 1u);
  EXPECT_EQ(all.mismatches[0].key, "P1");
}

StatementRow Row(const std::string& key, int64_t amount, int64_t at_ms, int line) {
  return {key, amount, "t" + std::to_string(at_ms), line, at_ms};
}

// The bank charged T010 twice, as the ledger has it: both copies are the
// bank's, the key is clean against the statement, and the second copy is held.
TEST(ReconcileFindingsTest, AHeldKeyMatchesOneMovementPerCopyAndIsNoMismatch) {
  const std::vector<StatementRow> bank = {Row("T010", 4200, 1'000, 1), Row("T010", 4200, 21'000, 2),
                                          Row("P2", 5500, 30'000, 3)};
  Findings f = Analyze(
      Flows(), {Entry("T010", -4200, "u", 0), Entry("T010", -4200, "u", 20'000), Entry("P2", -5000, "u", 30'000)},
      &bank);
  ASSERT_EQ(f.duplicates.size(), 1u);
  EXPECT_EQ(f.duplicates[0].bank_movements, 2);
  EXPECT_EQ(f.duplicates[0].extra[0].state, CopyState::kHeld);
  // The real difference still shows, and only it.
  ASSERT_EQ(f.mismatches.size(), 1u);
  EXPECT_EQ(f.mismatches[0].key, "P2");
  EXPECT_EQ(f.mismatches[0].kind, MismatchKind::kAmountDiffers);
  EXPECT_EQ(f.mismatches[0].line, 3);
}

// One movement and two copies of which one differs in amount from it: the
// movement is the first copy's, the other copy is open.
TEST(ReconcileFindingsTest, ADoubleTheBankChargedOnceAtAnotherAmountIsOneDifferenceAndOneOpenCopy) {
  const std::vector<StatementRow> bank = {Row("T1", 4000, 1'000, 1)};
  Findings f = Analyze(Flows(), {Entry("T1", -4200, "u", 0), Entry("T1", -4200, "u", 20'000)}, &bank);
  ASSERT_EQ(f.mismatches.size(), 1u);
  EXPECT_EQ(f.mismatches[0].kind, MismatchKind::kAmountDiffers);
  EXPECT_EQ(*f.mismatches[0].ledger, 4200);
  EXPECT_EQ(*f.mismatches[0].bank, 4000);
  EXPECT_EQ(f.duplicates[0].extra[0].state, CopyState::kOpen);
}

// Day 2's statement says nothing of day 1: a day-1 double is not covered —
// not open, so --apply does not reverse it on that evidence.
TEST(ReconcileFindingsTest, CopiesOutsideThePeriodThatNoMovementMatchesAreNotCovered) {
  const int64_t day = 86'400'000;
  const std::vector<StatementRow> bank = {Row("T2", 100, day + 5'000, 1)};
  Findings f = Analyze(Flows(),
                       {Entry("T010", -4200, "u", 1'000), Entry("T010", -4200, "u", 2'000),
                        Entry("T2", -100, "u", day + 4'000)},
                       &bank, Period{day, 2 * day});
  ASSERT_EQ(f.duplicates.size(), 1u);
  EXPECT_EQ(f.duplicates[0].bank_movements, 0);
  EXPECT_EQ(f.duplicates[0].extra[0].state, CopyState::kNotCovered);
  EXPECT_TRUE(f.mismatches.empty());
}

// Day 1's last payment, booked by the bank after midnight, is on day 2's
// statement: it matches inside the window, and is missing in the ledger
// beyond it. A row outside the period that matches nothing is not compared.
TEST(ReconcileFindingsTest, ALateMovementMatchesItsCopyInsideTheWindow) {
  const int64_t day = 86'400'000, late = day + 20 * 60'000;
  const std::vector<StatementRow> bank = {Row("T012", 1000, late, 1), Row("OLD", 5, day - 10 * day, 2)};
  const std::vector<LedgerEntry> ledger = {Entry("T012", -1000, "u", day - 10 * 60'000)};
  Findings f = Analyze(Flows(), ledger, &bank, Period{day, 2 * day});
  EXPECT_TRUE(f.mismatches.empty()) << MismatchKindName(f.mismatches[0].kind);
  EXPECT_EQ(f.rows_not_covered, 1);
  Findings narrow = Analyze(Flows(), ledger, &bank, Period{day, 2 * day}, 60'000);
  ASSERT_EQ(narrow.mismatches.size(), 1u);
  EXPECT_EQ(narrow.mismatches[0].kind, MismatchKind::kMissingInLedger);
  EXPECT_EQ(narrow.mismatches[0].key, "T012");
}

// The bank charged T1 twice, at 23:59:50 and at 00:00:10: each day's statement
// shows one movement. Day 1 leaves the second copy to day 2, which holds it.
TEST(ReconcileFindingsTest, ADoubleChargeAcrossMidnightIsHeldByTheSecondDaysMovement) {
  const int64_t day = 86'400'000;
  const std::vector<LedgerEntry> ledger = {Entry("T1", -4200, "u", day - 10'000), Entry("T1", -4200, "u", day + 10'000)};
  const std::vector<StatementRow> first = {Row("T1", 4200, day - 9'000, 1)};
  Findings day1 = Analyze(Flows(), ledger, &first, Period{0, day});
  EXPECT_EQ(day1.duplicates[0].extra[0].state, CopyState::kNotCovered);
  EXPECT_TRUE(day1.mismatches.empty());
  const std::vector<StatementRow> second = {Row("T1", 4200, day + 11'000, 1)};
  Findings day2 = Analyze(Flows(), ledger, &second, Period{day, 2 * day});
  EXPECT_EQ(day2.duplicates[0].extra[0].state, CopyState::kHeld);
  EXPECT_TRUE(day2.mismatches.empty());
}

}  // namespace
}  // namespace idem::reconcile
