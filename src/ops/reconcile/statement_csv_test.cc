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
  EXPECT_EQ((*rows)[0].time_ms, 1'790'560'812'000);
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

std::string ErrorOf(const std::string& csv) {
  auto rows = ParseStatementCsv(csv, 2);
  return rows.ok() ? "(read " + std::to_string(rows->size()) + " rows)" : rows.status().message();
}

// A spreadsheet's UTF-8 export starts with a byte order mark: it belongs to no field.
TEST(StatementCsvTest, AByteOrderMarkIsDroppedWithOrWithoutAHeader) {
  for (const std::string csv :
       {"\xEF\xBB\xBFT001,42.00\r\nT002,1.00\r\n", "\xEF\xBB\xBF" "biz_no,amount\nT001,42.00\nT002,1\n"}) {
    auto rows = ParseStatementCsv(csv, 2);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    ASSERT_EQ(rows->size(), 2u);
    EXPECT_EQ((*rows)[0].key, "T001");
    EXPECT_EQ((*rows)[0].amount, 4200);
  }
}

// A header is told by its amount column's name, whatever digits the names hold.
TEST(StatementCsvTest, AHeaderIsAFirstLineWhoseAmountStartsWithALetter) {
  for (const std::string header : {"ref2,amount_2dp,booked_at3", "Ref,Betrag (EUR)", "\"biz_no\",\"amount\"",
                                   "单号,金额,时间"}) {
    auto rows = ParseStatementCsv(header + "\nT1,1.00\n", 2);
    ASSERT_TRUE(rows.ok()) << header << ": " << rows.status().ToString();
    ASSERT_EQ(rows->size(), 1u) << header;
    EXPECT_EQ((*rows)[0].line, 2);
  }
  EXPECT_NE(ErrorOf("T1,-.5x\n").find("line 1, column 4: the amount"), std::string::npos) << ErrorOf("T1,-.5x\n");
}

// Each error says what is wrong and where, not what it made of the field.
TEST(StatementCsvTest, ErrorsNameTheRealProblemWithLineAndColumn) {
  const std::pair<std::string, std::string> cases[] = {
      {"T1,1.00\nT010,42.00\t\n", "line 2, column 11: a tab after the value (trailing whitespace)"},
      {"T0\t10,42.00\n", "line 1, column 3: a tab inside the value"},
      {"T010, \"42.00\"\n", "line 1, column 6: a space before the opening quote"},
      {"\"T010\"x,42.00\n", "line 1, column 7: text after the closing quote"},
      {"\"T010\" ,42.00\n", "line 1, column 7: a space after the closing quote (trailing whitespace)"},
      {"T\"010,42.00\n", "line 1, column 2: a quote inside an unquoted field"},
      {"T1,1\nT2,\"42.00\n", "line 2, column 4: a quoted field is not closed"},
      {"T1,1.00,yesterday\n", "line 1, column 9: the time: 'yesterday' is not a time"},
      {"T1,1.001\n", "line 1, column 4: the amount"},
      {"T1,1\n\xEF\xBB\xBFT2,1\n", "line 2, column 1: a byte order mark inside the file"},  // found by fuzz_statement
  };
  for (const auto& [csv, expected] : cases) EXPECT_NE(ErrorOf(csv).find(expected), std::string::npos) << ErrorOf(csv);
  // Spaces around an unquoted field are not data.
  auto spaced = ParseStatementCsv(" T1 , 1.00 \n", 2);
  ASSERT_TRUE(spaced.ok()) << spaced.status().ToString();
  EXPECT_EQ((*spaced)[0].key, "T1");
}

}  // namespace
}  // namespace idem::reconcile
