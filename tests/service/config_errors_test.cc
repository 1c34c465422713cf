// Every configuration error names the file, line and column and what is
// expected; unknown keys are errors; defaults apply to what is left out.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "payments/service_handlers.h"
#include "service/config.h"
#include "service/service.h"
#include "service/worker.h"
#include "testing/test_util.h"
#include "service/running_idem.h"

namespace idem::service {
namespace {

constexpr const char* kMinimal = R"(
[broker]
url = "queue:q.db"
[store]
url = "sqlite:s.db"
[[consumer]]
group = "payments"
handlers = ["payments"]
)";

struct BadFile {
  std::string text;
  std::string position;  // "f.toml:LINE:COLUMN"
  std::string says;      // a piece of the message
};

TEST(ConfigTest, DefaultsApplyToWhatIsLeftOut) {
  auto c = ParseConfig(kMinimal, "f.toml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->broker_url, "queue:q.db");
  EXPECT_EQ(c->store_url, "sqlite:s.db");
  ASSERT_EQ(c->consumers.size(), 1u);
  const ConsumerConfig& k = c->consumers[0];
  EXPECT_EQ(k.workers, 1);
  EXPECT_EQ(k.batch_size, 100u);
  EXPECT_EQ(k.lease_ms, 60'000);
  EXPECT_EQ(k.max_attempts, 5);
  EXPECT_EQ(k.retry_delays_ms, (std::vector<int64_t>{30'000, 60'000, 300'000, 300'000, 300'000}));
  EXPECT_EQ(c->retention.window_days, 90);
  EXPECT_EQ(c->outage_policy, FilterOutagePolicy::kClosed);
  EXPECT_TRUE(c->fast_filter_url.empty());
}

TEST(ConfigTest, EveryKeyIsRead) {
  auto c = ParseConfig(R"(
[broker]
url = "amqp://guest:guest@127.0.0.1:5672/"
visibility_timeout_ms = 45000
prefetch = 50
[store]
url = "postgresql://idem@127.0.0.1:5432/pay"
[fast_filter]
url = "redis://127.0.0.1:6379"
ttl_ms = 172800000
outage_policy = "open"
key_prefix = "pay:"
[service]
http_listen = "127.0.0.1:9464"
shutdown_timeout_ms = 10000
abandon_timeout_ms = 2000
log_decisions = false
[retention]
window_days = 30
sweep_interval_ms = 60000
sweep_batch_rows = 500
[[consumer]]
group = "g1"
workers = 3
batch_size = 20
max_linger_ms = 5
lease_ms = 30000
retry_delays_ms = [1000, 2000]
max_attempts = 3
handlers = ["payments"]
)",
                       "f.toml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->visibility_timeout_ms, 45'000);
  EXPECT_EQ(c->prefetch, 50u);
  EXPECT_EQ(c->redis_ttl_ms, 172'800'000);
  EXPECT_EQ(c->outage_policy, FilterOutagePolicy::kOpen);
  EXPECT_EQ(c->key_prefix, "pay:");
  EXPECT_EQ(c->http_listen, "127.0.0.1:9464");
  EXPECT_EQ(c->shutdown_timeout_ms, 10'000);
  EXPECT_EQ(c->abandon_timeout_ms, 2'000);
  EXPECT_FALSE(c->log_decisions);
  EXPECT_EQ(c->retention.window_days, 30);
  EXPECT_EQ(c->retention.sweep_interval_ms, 60'000);
  EXPECT_EQ(c->retention.sweep_batch_rows, 500);
  const ConsumerConfig& k = c->consumers.at(0);
  EXPECT_EQ(k.workers, 3);
  EXPECT_EQ(k.batch_size, 20u);
  EXPECT_EQ(k.max_linger_ms, 5);
  EXPECT_EQ(k.lease_ms, 30'000);
  EXPECT_EQ(k.retry_delays_ms, (std::vector<int64_t>{1000, 2000}));
  EXPECT_EQ(k.max_attempts, 3);
  ASSERT_EQ(k.handler_sets.size(), 1u);
  EXPECT_EQ(k.handler_sets[0].where, "f.toml:30:13");
}

#ifdef IDEM_WITH_KAFKA
// retry_mode is per group; unset, the broker's default applies (Kafka: retry topics).
TEST(ConfigTest, RetryModeIsPerGroupAndReachesTheBroker) {
  auto c = ParseConfig(R"(
[broker]
url = "kafka://mock/payments"
[store]
url = "sqlite:s.db"
[[consumer]]
group = "payments"
handlers = ["payments"]
retry_mode = "ordered"
[[consumer]]
group = "notices"
handlers = ["notices"]
retry_mode = "retry_topics"
[[consumer]]
group = "points"
handlers = ["points"]
)", "f.toml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->consumers.size(), 3u);
  EXPECT_EQ(c->consumers[0].retry_mode, RetryMode::kOrdered);
  EXPECT_EQ(c->consumers[1].retry_mode, RetryMode::kRetryTopics);
  EXPECT_EQ(c->consumers[2].retry_mode, RetryMode::kBrokerDefault);
  EXPECT_EQ(BrokerOptionsFor(*c, c->consumers[1], {}).retry_mode, RetryMode::kRetryTopics);
}
#endif

TEST(ConfigTest, EachErrorNamesFileLineColumnAndWhatIsExpected) {
  const std::vector<BadFile> cases = {
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\nbatchsize = 5\n",
       "f.toml:8:1", "unknown key 'batchsize' in [[consumer]] #1"},
      {"[broker]\nurl = \"q\"\nvisibility_timeout = 5\n[store]\nurl = \"s\"\n", "f.toml:3:1",
       "unknown key 'visibility_timeout' in [broker]"},
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\nbatch_size = \"ten\"\n",
       "f.toml:8:14", "batch_size must be a whole number from 1 to 10000, found a string"},
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\nlease_ms = 5\n",
       "f.toml:8:12", "lease_ms must be a whole number from 1000"},
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\n"
       "retry_delays_ms = [1000, -1]\n",
       "f.toml:8:26", "retry_delays_ms must be a non-empty array of whole numbers"},
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\n"
       "retry_mode = \"later\"\n",
       "f.toml:8:14", "retry_mode must be one of \"ordered\", \"retry_topics\", found \"later\""},
      // Ordered retries hold a key in the consumer: only a Kafka partition lets it.
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\n"
       "retry_mode = \"ordered\"\n",
       "f.toml:8:14", "[[consumer]] #1 (group \"g\") retry_mode = \"ordered\" needs a Kafka broker"},
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[fast_filter]\nurl = \"redis://x\"\noutage_policy = \"maybe\"\n",
       "f.toml:7:17", "outage_policy must be one of \"closed\", \"open\", found \"maybe\""},
      {"[store]\nurl = \"s\"\n", "f.toml:1:1", "missing [broker] with url"},
      {"[broker]\nport = 1\n[store]\nurl = \"s\"\n", "f.toml:1:1", "[broker] needs url = \"…\""},
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n", "f.toml:1:1", "no [[consumer]] table"},
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[[consumer]]\nworkers = 2\nhandlers = [\"payments\"]\n", "f.toml:5:1",
       "[[consumer]] #1 needs group = \"…\""},
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[[consumer]]\ngroup = \"g\"\n", "f.toml:5:1",
       "needs handlers = [\"NAME\", …]"},
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[service]\nhttp_listen = \"9464\"\n", "f.toml:6:15",
       "http_listen must be \"HOST:PORT\""},
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\n"
       "[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\n",
       "f.toml:8:1", "consumer group \"g\" is declared twice (first at f.toml:5:1)"},
      {"[broker]\nurl = \"q\"\n[store\nurl = \"s\"\n", "f.toml:3:7", "not valid TOML"},
      {"broker = \"q\"\n", "f.toml:1:10", "broker must be a table"},
  };
  for (const BadFile& b : cases) {
    auto c = ParseConfig(b.text, "f.toml");
    ASSERT_FALSE(c.ok()) << b.text;
    EXPECT_EQ(c.status().code(), Status::Code::kInvalidArgument);
    const std::string& m = c.status().message();
    EXPECT_EQ(m.rfind(b.position + ": ", 0), 0u) << m << "\nexpected at " << b.position << " in:\n" << b.text;
    EXPECT_NE(m.find(b.says), std::string::npos) << m;
  }
}

// A URL that names no known scheme is refused at the position of its value,
// with the known schemes and the nearest one; before, "sqlit:store.db" was
// taken for a file of that name.
TEST(ConfigTest, AUrlWithAnUnknownSchemeIsRefusedAtItsValue) {
  const std::string rest = "[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\n";
  const std::vector<BadFile> cases = {
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"sqlit:store.db\"\n" + rest, "f.toml:4:7",
       "[store] url: unsupported store URL 'sqlit:store.db': 'sqlit:' is not a store scheme (did you mean `sqlite:`?)"},
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"sqlte:/abs/path\"\n" + rest, "f.toml:4:7", "did you mean `sqlite:`?"},
      {"[broker]\nurl = \"queu:q.db\"\n[store]\nurl = \"s\"\n" + rest, "f.toml:2:7",
       "[broker] url: unsupported broker URL 'queu:q.db': 'queu:' is not a broker scheme (did you mean `queue:`?)"},
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[fast_filter]\nurl = \"localhost:6379\"\n" + rest, "f.toml:6:7",
       "[fast_filter] url: unsupported fast filter URL 'localhost:6379'"},
      {"[broker]\nurl = \"q\"\n[store]\nurl = \"sqlite:\"\n" + rest, "f.toml:4:7", "names no file"},
  };
  for (const BadFile& b : cases) {
    auto c = ParseConfig(b.text, "f.toml");
    ASSERT_FALSE(c.ok()) << b.text;
    const std::string& m = c.status().message();
    EXPECT_EQ(m.rfind(b.position + ": ", 0), 0u) << m << "\nexpected at " << b.position;
    EXPECT_NE(m.find(b.says), std::string::npos) << m;
  }
  auto store = ParseConfig(cases[0].text, "f.toml");
  EXPECT_NE(store.status().message().find("the store schemes are sqlite:PATH, postgresql://"), std::string::npos)
      << store.status().ToString();
}

TEST(ConfigTest, UnknownHandlerSetIsNamedAtItsPosition) {
  auto c = ParseConfig("[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[[consumer]]\ngroup = \"g\"\nhandlers = [\"payment\"]\n",
                       "f.toml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  HandlerRegistry registry;
  ASSERT_TRUE(payments::RegisterServiceHandlers(registry).ok());
  Status s = CheckConfig(*c, registry);
  EXPECT_EQ(s.message(), "f.toml:7:13: no handler set named \"payment\" in this program; it has: notices, payments, payments-outbox, points");
}

TEST(ConfigTest, RedisTtlShorterThanTheRetryWindowIsRefused) {
  auto c = ParseConfig("[broker]\nurl = \"q\"\n[store]\nurl = \"s\"\n[fast_filter]\nurl = \"redis://h\"\nttl_ms = 60000\n"
                       "[[consumer]]\ngroup = \"g\"\nhandlers = [\"payments\"]\nretry_delays_ms = [60000]\n",
                       "f.toml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  HandlerRegistry registry;
  ASSERT_TRUE(payments::RegisterServiceHandlers(registry).ok());
  Status s = CheckConfig(*c, registry);
  EXPECT_NE(s.message().find("ttl_ms = 60000 is shorter than group \"g\"'s retry window plus lease"), std::string::npos)
      << s.ToString();
}

TEST(RunCheckCommandTest, ValidFileExitsZeroBadFileExitsTwoWithPosition) {
  testing::TempDir dir;
  const std::string good = dir.File("good.toml"), bad = dir.File("bad.toml");
  std::ofstream(good) << kMinimal;
  std::ofstream(bad) << std::string(kMinimal) + "max_attempts = 0\n";
  auto ok = testing::RunProcess({IDEM_CLI_PATH, "run", "--check", good});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("OK (1 consumer group(s), 1 worker(s)"), std::string::npos) << ok.out;
  auto no = testing::RunProcess({IDEM_CLI_PATH, "run", "--check", bad});
  EXPECT_EQ(no.exit_code, 2);
  EXPECT_NE(no.err.find(bad + ":9:16: [[consumer]] #1 max_attempts must be a whole number from 1 to 1000, found 0"),
            std::string::npos)
      << no.err;
}

// `idem run --check` and `idem run --config` on a typo'd store scheme: exit 2
// with FILE:LINE:COLUMN and the nearest scheme, and no file named after the
// typo (before: both passed, and the run created "sqlit:store.db" and
// consumed nothing, exit 0).
TEST(RunCheckCommandTest, ATypoedStoreSchemeExitsTwoAtItsPositionAndCreatesNoFile) {
  testing::TempDir dir;
  const std::string config = dir.File("typo.toml");
  std::ofstream(config) << "[broker]\nurl = \"queue:q.db\"\n[store]\nurl = \"sqlit:store.db\"\n"
                           "[[consumer]]\ngroup = \"payments\"\nhandlers = [\"payments\"]\n";
  // Relative URLs resolve against the working directory: run in the test's folder.
  for (const std::string& args : {std::string("--check typo.toml"), std::string("--config typo.toml --until-idle")}) {
    auto r = testing::RunProcess({"/bin/sh", "-c", "cd '" + dir.path() + "' && exec '" IDEM_CLI_PATH "' run " + args});
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("typo.toml:4:7: [store] url: unsupported store URL 'sqlit:store.db'"), std::string::npos)
        << args << "\n" << r.err;
    EXPECT_NE(r.err.find("did you mean `sqlite:`?"), std::string::npos) << r.err;
  }
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) files.push_back(e.path().filename().string());
  EXPECT_EQ(files, std::vector<std::string>{"typo.toml"}) << "nothing is created: no store, no queue";
}

}  // namespace
}  // namespace idem::service
