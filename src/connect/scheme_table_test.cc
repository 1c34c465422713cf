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

TEST(SchemeTableTest, AKnownSchemeThisBuildLeavesOutNamesTheCMakeOption) {
  for (const char* url : {"foo://h/db", "fu://h/db"}) {
    auto r = FindOpener(TestTable(), url);
    ASSERT_FALSE(r.ok()) << url;
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
    EXPECT_TRUE(Contains(r.status(), "needs the Foo store")) << r.status().ToString();
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
