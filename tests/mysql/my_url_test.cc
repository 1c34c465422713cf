// Reading mysql:// URLs: no server needed.
#include <gtest/gtest.h>

#include "store/mysql/my_url.h"
#include "store/store_url.h"

namespace idem::mysql {
namespace {

TEST(MysqlUrlTest, ReadsEveryPartAndDecodesEscapes) {
  auto p = ParseMysqlUrl("mariadb://bill%40ing:p%3Ass@db.internal:3307/app%5Fdb?connect_timeout=7");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->user, "bill@ing");
  EXPECT_EQ(p->password, "p:ss");
  EXPECT_EQ(p->host, "db.internal");
  EXPECT_EQ(p->port, 3307u);
  EXPECT_EQ(p->database, "app_db");
  EXPECT_EQ(p->connect_timeout_s, 7);
}

TEST(MysqlUrlTest, ThePortDefaultsTo3306) {
  auto p = ParseMysqlUrl("mysql://u@h/db");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->port, 3306u);
  EXPECT_EQ(p->password, "");
}

TEST(MysqlUrlTest, MistakesSayWhatToWriteAndNeverShowThePassword) {
  for (const char* url : {"mysql://u:secret@h:0/db", "mysql://u:secret@h:3306", "mysql://u:secret@:3306/db",
                          "mysql://u:secret@h/db?ssl=1", "mysql://u:secret@h/db?connect_timeout=-1",
                          "mysql://u:secret%zz@h/db"}) {
    auto p = ParseMysqlUrl(url);
    ASSERT_FALSE(p.ok()) << url;
    EXPECT_EQ(p.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(p.status().message().find("mysql://USER:PASSWORD@HOST:PORT/DB"), std::string::npos)
        << p.status().message();
    EXPECT_EQ(p.status().message().find("secret"), std::string::npos) << p.status().message();
  }
}

TEST(MysqlUrlTest, TheWiringTableKnowsBothSchemes) {
  for (const char* url : {"mysql://u:p@h/db", "mariadb://u:p@h/db"}) {
    auto u = ParseStoreUrl(url);
    ASSERT_TRUE(u.ok()) << u.status().ToString();
    EXPECT_EQ(u->kind, StoreUrl::Kind::kMySql);
  }
}

}  // namespace
}  // namespace idem::mysql
