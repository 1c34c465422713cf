#include "ops/reconcile/statement_csv.h"

#include <gtest/gtest.h>

namespace idem::reconcile {
namespace {

TEST(StatementCsvTest, ReadsRowsAfterAHeaderWithQuotesAndCrlf) {
  auto rows = ParseStatementCsv(
      "\nbiz_no,amount,time\r\nP20260928001,199.00,2026-09-28T10:00:12+08:00\r\n\"P,2\", -1.5 \n\"P\"\"3\",3,\n", 2);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[0].key, "P20260928001");
  EXPECT_EQ((*rows)[0].amount, 19900);
  EXPECT_EQ((*rows)[0].time, "2026-09-28T10:00:12+08:00");
  EXPECT_EQ((*rows)[0].line, 3);
  EXPECT_EQ((*rows)[1].key, "P,2");
  EXPECT_EQ((*rows)[1].amount, -150);
  EXPECT_EQ((*rows)[1].time, "");
  EXPECT_EQ((*rows)[2].key, "P\"3");
}

TEST(StatementCsvTest, ErrorsNameTheLine) {
  auto bad_amount = ParseStatementCsv("P1,199.00\nP2,19x\n", 2);
  ASSERT_FALSE(bad_amount.ok());
  EXPECT_NE(bad_amount.status().message().find("line 2"), std::string::npos) << bad_amount.status().message();
  auto fields = ParseStatementCsv("P1,1,t,extra\n", 2);
  ASSERT_FALSE(fields.ok());
  EXPECT_NE(fields.status().message().find("line 1"), std::string::npos);
  EXPECT_FALSE(ParseStatementCsv("\"P1,1\n", 2).ok());
  // A malformed first movement is an error, not a header to skip.
  auto first = ParseStatementCsv("P1,199.0.0\nP2,1.00\n", 2);
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.status().message().find("line 1"), std::string::npos) << first.status().message();
  EXPECT_FALSE(ParseStatementCsv("P1,1\n,2\n", 2).ok());  // empty key
}

}  // namespace
}  // namespace idem::reconcile
