#include "store/postgres/pg_placeholders.h"

#include <gtest/gtest.h>

namespace idem::pg {
namespace {

std::string T(std::string_view sql) { return TranslatePlaceholders(sql).text; }

TEST(PgPlaceholders, NumbersEachQuestionMarkInOrder) {
  TranslatedSql t = TranslatePlaceholders("INSERT INTO t (a, b) VALUES (?, ?)");
  EXPECT_EQ(t.text, "INSERT INTO t (a, b) VALUES ($1, $2)");
  EXPECT_EQ(t.placeholders, 2u);
}

TEST(PgPlaceholders, LeavesLiteralsIdentifiersAndCommentsAlone) {
  EXPECT_EQ(T("SELECT '?', 'it''s ?', ? FROM t"), "SELECT '?', 'it''s ?', $1 FROM t");
  EXPECT_EQ(T("SELECT E'\\'?', ?"), "SELECT E'\\'?', $1");
  EXPECT_EQ(T("SELECT \"odd?name\", \"a\"\"?\" FROM t WHERE x = ?"),
            "SELECT \"odd?name\", \"a\"\"?\" FROM t WHERE x = $1");
  EXPECT_EQ(T("SELECT ? -- why?\n, ?"), "SELECT $1 -- why?\n, $2");
  EXPECT_EQ(T("SELECT /* a? /* nested? */ still? */ ?"), "SELECT /* a? /* nested? */ still? */ $1");
}

TEST(PgPlaceholders, LeavesDollarQuotedBodiesAndNativeParametersAlone) {
  EXPECT_EQ(T("DO $$ BEGIN PERFORM '?'; END $$; SELECT ?"), "DO $$ BEGIN PERFORM '?'; END $$; SELECT $1");
  EXPECT_EQ(T("SELECT $fn$ ? $fn$, ?"), "SELECT $fn$ ? $fn$, $1");
  TranslatedSql native = TranslatePlaceholders("SELECT $1, $2::text");
  EXPECT_EQ(native.text, "SELECT $1, $2::text");
  EXPECT_EQ(native.placeholders, 0u);
}

TEST(PgPlaceholders, UnterminatedConstructsDoNotRunOffTheEnd) {
  EXPECT_EQ(T("SELECT 'open ?"), "SELECT 'open ?");
  EXPECT_EQ(T("SELECT /* open ?"), "SELECT /* open ?");
  EXPECT_EQ(T("SELECT $x$ open ?"), "SELECT $x$ open ?");
  EXPECT_EQ(T("?"), "$1");
  EXPECT_EQ(T(""), "");
}

}  // namespace
}  // namespace idem::pg
