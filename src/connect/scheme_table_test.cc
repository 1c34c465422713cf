#include "connect/scheme_table.h"

#include <gtest/gtest.h>

#include "connect/known_schemes.h"
#include "idem/broker.h"
#include "idem/fast_filter.h"
#include "idem/store.h"

namespace idem::connect {
namespace {

using TestOpener = int (*)();
int OpenFile() { return 1; }
int OpenFoo() { return 2; }

// A table with one always-built file backend and one "foo://" backend this
// build leaves out, whatever the real build options are.
SchemeTable<TestOpener> TestTable() {
  return {"store",
          {{{{"file:"}, "file:PATH", "the file store", "", true}, &OpenFile},
           {{{"foo://", "fu://"}, "foo://HOST/DB", "the Foo store", "IDEM_WITH_FOO"}, nullptr},
           {{{"bar://"}, "bar://HOST", "the Bar store", "IDEM_WITH_BAR"}, &OpenFoo}}};
}

bool Contains(const Status& s, const std::string& text) { return s.message().find(text) != std::string::npos; }

TEST(SchemeTableTest, PicksTheSchemeByPrefixAndBarePathsGoToTheFileBackend) {
  auto table = TestTable();
  ASSERT_TRUE(FindOpener(table, "file:/tmp/x.db").ok());
  EXPECT_EQ((*FindOpener(table, "file:/tmp/x.db"))(), 1);
  EXPECT_EQ((*FindOpener(table, "/tmp/x.db"))(), 1);
  EXPECT_EQ((*FindOpener(table, "bar://h"))(), 2);
}

TEST(SchemeTableTest, AnUnknownSchemeListsTheKnownOnes) {
  auto r = FindOpener(TestTable(), "oracle://db");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(Contains(r.status(), "unsupported store URL 'oracle://db'")) << r.status().ToString();
  for (const char* form : {"file:PATH", "foo://HOST/DB", "bar://HOST"})
    EXPECT_TRUE(Contains(r.status(), form)) << form << " missing from: " << r.status().ToString();
}

TEST(SchemeTableTest, AColonBeforeTheFirstSlashIsASchemeNeverAFileName) {
  auto table = TestTable();
  for (const char* url : {"fil:x.db", "fiel:/abs/x.db", "x:y", "data:v2/x.db", "C:x.db"}) {
    auto r = FindOpener(table, url);
    ASSERT_FALSE(r.ok()) << url << " was taken for a file path";
    EXPECT_TRUE(Contains(r.status(), "unsupported store URL '" + std::string(url) + "'")) << r.status().ToString();
    EXPECT_TRUE(Contains(r.status(), "file:PATH")) << r.status().ToString();
  }
  // A ':' after a '/' is part of a file name.
  for (const char* url : {"./a:b.db", "/data/a:b.db", "dir/x:1.db", "plain.db"}) EXPECT_TRUE(FindOpener(table, url).ok()) << url;
}

TEST(SchemeTableTest, ATypoedSchemeGetsTheNearestKnownOne) {
  auto table = TestTable();
  auto r = FindOpener(table, "fil:x.db");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status(), "'fil:' is not a store scheme (did you mean `file:`?)")) << r.status().ToString();
  EXPECT_TRUE(Contains(r.status(), "a path with no ':' before its first '/' is a file of the file store"))
      << r.status().ToString();
  r = FindOpener(table, "ofo://h/db");  // two neighbours swapped
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status(), "did you mean `foo://`?")) << r.status().ToString();
  r = FindOpener(table, "oracle://h/db");  // nothing near: no guess
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(Contains(r.status(), "did you mean")) << r.status().ToString();
  EXPECT_TRUE(Contains(r.status(), "foo://HOST/DB (or fu://)")) << r.status().ToString();
}

// Left out by the program (it does not link the component) or by idem's build:
// the error names both remedies.
TEST(SchemeTableTest, AKnownSchemeThisBuildLeavesOutNamesTheTargetAndTheCMakeOption) {
  for (const char* url : {"foo://h/db", "fu://h/db"}) {
    auto r = FindOpener(TestTable(), url);
    ASSERT_FALSE(r.ok()) << url;
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
    EXPECT_TRUE(Contains(r.status(), "needs the Foo store")) << r.status().ToString();
    EXPECT_TRUE(Contains(r.status(), "link idem::foo ")) << r.status().ToString();
    EXPECT_TRUE(Contains(r.status(), "-DIDEM_WITH_FOO=ON")) << r.status().ToString();
  }
}

TEST(SchemeTableTest, ErrorsNeverShowPasswords) {
  for (const char* url : {"foo://idem:s3cret@h/db", "oracle://idem:s3cret@h/db", "foo://h/db?user=idem&password=s3cret"}) {
    auto r = FindOpener(TestTable(), url);
    ASSERT_FALSE(r.ok()) << url;
    EXPECT_EQ(r.status().message().find("s3cret"), std::string::npos) << r.status().ToString();
    EXPECT_TRUE(Contains(r.status(), "***")) << r.status().ToString();
  }
  EXPECT_EQ(RedactedUrl("amqp://idem:s3cret@127.0.0.1:1/?queue=q"), "amqp://idem:***@127.0.0.1:1/?queue=q");
  EXPECT_EQ(RedactedUrl("postgresql://idem@h/db?password=s3cret&sslmode=off"),
            "postgresql://idem@h/db?password=***&sslmode=off");
  EXPECT_EQ(RedactedUrl("/tmp/a@b:c.db"), "/tmp/a@b:c.db");  // a path has no password
  EXPECT_EQ(RedactedUrl("idem:s3cret@h/db"), "idem:***@h/db");  // a URL whose scheme was left out
}

TEST(SchemeTableTest, WithoutAFileBackendABarePathIsUnknown) {
  SchemeTable<TestOpener> table{"fast filter", {{{{"foo://"}, "foo://HOST", "the Foo filter", "IDEM_WITH_FOO"}, &OpenFoo}}};
  auto r = FindOpener(table, "localhost:6379");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status(), "unsupported fast filter URL")) << r.status().ToString();
}

TEST(KnownSchemesTest, UnknownSchemesGetTheListOfEveryKnownOne) {
  auto store = OpenStore("oracle://x", Env::Default());
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(Contains(store.status(), "sqlite:PATH")) << store.status().ToString();
  EXPECT_TRUE(Contains(store.status(), "postgresql://")) << store.status().ToString();

  auto broker = OpenBroker("nats://x", BrokerOptions{}, Env::Default());
  ASSERT_FALSE(broker.ok());
  EXPECT_TRUE(Contains(broker.status(), "queue:PATH")) << broker.status().ToString();
  EXPECT_TRUE(Contains(broker.status(), "amqp://")) << broker.status().ToString();

  auto filter = OpenFastFilter("memcached://x", FastFilterUrlOptions{}, Env::Default());
  ASSERT_FALSE(filter.ok());
  EXPECT_TRUE(Contains(filter.status(), "redis://")) << filter.status().ToString();
}

TEST(KnownSchemesTest, TypoedSchemesAreRefusedWithTheNearestKnownOne) {
  const struct {
    Status status;
    const char* says;
  } cases[] = {
      {CheckStoreUrl("sqlit:store.db"), "'sqlit:' is not a store scheme (did you mean `sqlite:`?)"},
      {CheckStoreUrl("sqlte:/abs/path"), "did you mean `sqlite:`?"},
      {CheckStoreUrl("postgresql:/h/db"), "did you mean `postgresql://`?"},
      {CheckStoreUrl("mysq://h/db"), "did you mean `mysql://`?"},
      {CheckBrokerUrl("queu:q.db"), "'queu:' is not a broker scheme (did you mean `queue:`?)"},
      {CheckBrokerUrl("kafak://mock/t"), "did you mean `kafka://`?"},
      {CheckFastFilterUrl("rediss://h"), "did you mean `redis://`?"},
      {CheckFastFilterUrl("localhost:6379"), "redis://"},
  };
  for (const auto& c : cases) {
    ASSERT_FALSE(c.status.ok()) << c.says;
    EXPECT_EQ(c.status.code(), Status::Code::kInvalidArgument);
    EXPECT_TRUE(Contains(c.status, c.says)) << c.status.ToString();
  }
  EXPECT_TRUE(Contains(CheckStoreUrl("sqlit:store.db"), "sqlite:PATH, postgresql://USER@HOST:PORT/DB (or postgres://)"))
      << CheckStoreUrl("sqlit:store.db").ToString();
  EXPECT_TRUE(Contains(CheckBrokerUrl("queu:q.db"), "queue:PATH, amqp://")) << CheckBrokerUrl("queu:q.db").ToString();
}

TEST(KnownSchemesTest, CheckTakesEveryKnownFormAndReadsTheFileForms) {
  for (const char* url : {"sqlite:s.db", "s.db", "./a:b.db", "postgresql://idem@h/db", "mariadb://u:p@h/db"})
    EXPECT_TRUE(CheckStoreUrl(url).ok()) << url << ": " << CheckStoreUrl(url).ToString();
  for (const char* url : {"queue:q.db", "q.db", "amqp://h/?queue=q", "kafka://mock/t"})
    EXPECT_TRUE(CheckBrokerUrl(url).ok()) << url << ": " << CheckBrokerUrl(url).ToString();
  EXPECT_TRUE(CheckFastFilterUrl("redis://127.0.0.1:6379").ok());
  // The file forms are read in full: what would fail at start fails here.
  EXPECT_FALSE(CheckStoreUrl("sqlite:").ok());
  EXPECT_FALSE(CheckStoreUrl("sqlite:s.db?synchronous=off").ok());
  EXPECT_FALSE(CheckBrokerUrl("queue:").ok());
  EXPECT_FALSE(CheckBrokerUrl("").ok());
}

// Every optional backend names the option that builds it; the ones this build
// leaves out answer their URLs with that option.
template <class Opener>
void CheckOptionalBackends(const SchemeTable<Opener>& table) {
  for (const auto& s : table.schemes) {
    if (s.info.cmake_option.empty()) {
      EXPECT_NE(s.open, nullptr) << s.info.form << " is always built";
      continue;
    }
    EXPECT_EQ(s.info.cmake_option.rfind("IDEM_WITH_", 0), 0u) << s.info.form;
    if (s.open != nullptr) continue;
    auto r = FindOpener(table, s.info.prefixes.front() + "x");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(Contains(r.status(), "-D" + s.info.cmake_option + "=ON")) << r.status().ToString();
  }
}

TEST(KnownSchemesTest, OptionalBackendsNameTheirCMakeOption) {
  CheckOptionalBackends(StoreSchemes());
  CheckOptionalBackends(BrokerSchemes());
  CheckOptionalBackends(FastFilterSchemes());
}

}  // namespace
}  // namespace idem::connect
