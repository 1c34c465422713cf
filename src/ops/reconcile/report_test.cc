#include "ops/reconcile/report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ops/reconcile/test_specs.h"

namespace idem::reconcile {
namespace {

using testing::MinimalSpec;

ReportContext Context() {
  ReportContext ctx;
  ctx.format_time = [](int64_t ms) { return std::to_string(ms); };
  return ctx;
}

// Keys and accounts come from the database: a terminal must not run what is in them.
TEST(ReconcileReportTest, ControlCharactersInDataAreShownEscaped) {
  ReconcileResult r;
  r.findings = Analyze(MinimalSpec(), {{{"P1\x1b[2J"}, -100, "u\r1", 0}, {{"P1\x1b[2J"}, -100, "u\r1", 0}}, nullptr);
  const std::string text = TextReport(MinimalSpec(), r, Context());
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  EXPECT_NE(text.find("P1\\x1b[2J  account u\\x0d1"), std::string::npos) << text;
  // JSON escapes them itself and keeps the bytes.
  const auto j = nlohmann::json::parse(JsonReport(MinimalSpec(), r, Context()));
  EXPECT_EQ(j["duplicates"][0]["key"]["biz_no"], "P1\x1b[2J");
}

TEST(ReconcileReportTest, TheSummaryLineSaysWhatTheExitCodeMeans) {
  ReconcileResult clean;
  EXPECT_NE(TextReport(MinimalSpec(), clean, Context()).find("Result: exit 0: clean"), std::string::npos);
  ReconcileResult open;
  open.findings = Analyze(MinimalSpec(), {{{"P1"}, -100, "u", 0}, {{"P1"}, -100, "u", 0}}, nullptr);
  const std::string text = TextReport(MinimalSpec(), open, Context());
  EXPECT_NE(text.find("Result: exit 1: 1 finding needs a person"), std::string::npos) << text;
  EXPECT_NE(text.find("DRY RUN"), std::string::npos);
}

// A second --apply finds every copy reversed before: it must not claim to have restored anything.
TEST(ReconcileReportTest, AnApplyThatReversesNothingSaysNothingWasChanged) {
  ReportContext ctx = Context();
  ctx.apply = true;
  ctx.operator_name = "alice";
  ReconcileResult none;
  none.applied = true;
  const std::string text = TextReport(MinimalSpec(), none, ctx);
  EXPECT_NE(text.find("APPLIED by alice at 0: nothing left to reverse, nothing was changed"), std::string::npos) << text;
  EXPECT_EQ(text.find("balances restored"), std::string::npos) << text;
  ReconcileResult one = none;
  one.reversed_now = 1;
  EXPECT_NE(TextReport(MinimalSpec(), one, ctx).find("1 reversal written, balances restored"), std::string::npos);
}

}  // namespace
}  // namespace idem::reconcile
