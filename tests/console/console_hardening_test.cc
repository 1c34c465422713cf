// The console against a determined client: guessed secrets slow down and then
// stop costing anything (429, no hash), ids that name nothing change nothing
// (404, audited), a huge body gives a small page and downloads whole, the CSRF
// token never comes from the URL, and every answer — errors included — carries
// the security headers.
#include "console/console_fixture.h"

#include "console/audited_change.h"

namespace idem::console::testing {
namespace {

using ConsoleHardeningTest = ConsoleFixture;

httplib::Result LoginAttempt(httplib::Client& client, const std::string& origin, const std::string& name,
                             const std::string& secret) {
  return client.Post("/console/login", httplib::Headers{{"Origin", origin}},
                     httplib::Params{{"name", name}, {"secret", secret}});
}

TEST_F(ConsoleHardeningTest, FailedLoginsWaitLongerEachTimeThenAnswer429WithRetryAfter) {
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(LoginAttempt(*client_, Origin(), "alice", "wrong-secret-" + std::to_string(i))->status, 401);
  auto held = LoginAttempt(*client_, Origin(), "alice", "alice-secret");
  ASSERT_TRUE(held);
  EXPECT_EQ(held->status, 429) << "even the right secret waits: it is not checked";
  EXPECT_EQ(held->get_header_value("Retry-After"), "1");
  EXPECT_FALSE(held->has_header("Set-Cookie"));
  EXPECT_NE(held->body.find("try again in 1 s"), std::string::npos) << held->body;
  EXPECT_NE(held->get_header_value("Content-Security-Policy").find("default-src 'none'"), std::string::npos);

  clock_.now_ms += 1'000;
  EXPECT_EQ(LoginAttempt(*client_, Origin(), "alice", "wrong-secret-3")->status, 401) << "the wait is over: one try";
  auto longer = LoginAttempt(*client_, Origin(), "alice", "alice-secret");
  EXPECT_EQ(longer->status, 429);
  EXPECT_EQ(longer->get_header_value("Retry-After"), "2") << "each failure doubles the wait";
  EXPECT_EQ(LoginAttempt(*client_, Origin(), "vera", "vera-read-only")->status, 429)
      << "the address is held up too, whichever operator it names";

  clock_.now_ms += 2'000;
  EXPECT_EQ(LoginAttempt(*client_, Origin(), "alice", "alice-secret")->status, 303);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(LoginAttempt(*client_, Origin(), "alice", "wrong-secret")->status, 401) << "a success starts over";

  std::lock_guard<std::mutex> lock(log_mu_);
  std::string all;
  for (const std::string& line : log_) all += line + "\n";
  EXPECT_NE(all.find(R"("fields":{"ok":false,"operator":"alice","retry_after_s":1,"throttled":true})"),
            std::string::npos) << all;
}

TEST_F(ConsoleHardeningTest, FortyGuessesAtOnceGetNoMoreTriesThanFortyInARow) {
  constexpr int kGuesses = 40;
  std::vector<int> status(kGuesses);
  std::vector<std::thread> guessers;
  for (int i = 0; i < kGuesses; ++i)
    guessers.emplace_back([&, i] {
      // httplib listens with a backlog of 5: a connection it drops is tried again.
      for (int tries = 0; tries < 20 && status[i] <= 0; ++tries) {
        httplib::Client c("127.0.0.1", port_);
        auto r = LoginAttempt(c, Origin(), i % 2 ? "alice" : "mallory", "guess-number-" + std::to_string(i));
        status[i] = r ? r->status : -static_cast<int>(r.error());
      }
    });
  for (std::thread& t : guessers) t.join();
  EXPECT_EQ(std::count(status.begin(), status.end(), 401), 3) << "three free failures, each one checked";
  EXPECT_EQ(std::count(status.begin(), status.end(), 429), kGuesses - 3);
  EXPECT_EQ(LoginAttempt(*client_, Origin(), "alice", "alice-secret")->status, 429);
  clock_.now_ms += 1'000;
  EXPECT_EQ(LoginAttempt(*client_, Origin(), "alice", "alice-secret")->status, 303);
}

TEST_F(ConsoleHardeningTest, ABlankOrShortSecretIsRefused) {
  for (const char* secret : {"", "            ", "\t\t\t\t\t\t\t\t\t\t\t\t", "short"})
    EXPECT_FALSE(VerifySecret(secret, Hash("alice-secret"))) << "'" << secret << "'";
  EXPECT_FALSE(HashSecret("            ").ok());
  EXPECT_FALSE(HashSecret("eleven-char").ok());
  EXPECT_NE(HashSecret("eleven-char").status().message().find("at least 12 bytes"), std::string::npos);
  EXPECT_TRUE(HashSecret("twelve-chars", kMinHashIterations).ok());
  EXPECT_EQ(LoginAttempt(*client_, Origin(), "alice", "   ")->status, 401);
}

TEST_F(ConsoleHardeningTest, ReplayOrPurgeOfAnUnknownIdIs404ChangesNothingAndIsAuditedAsNotFound) {
  const int64_t id = Park("pay:P1", R"({"payment_id":"P1"})", "account missing");
  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  auto replay = Post("/console/replay", &*login, {{"id", "424242"}});
  ASSERT_TRUE(replay);
  EXPECT_EQ(replay->status, 404);
  EXPECT_NE(replay->body.find("no dead letter with id 424242: nothing was replayed"), std::string::npos)
      << replay->body;
  auto purge = Post("/console/purge", &*login, {{"id", std::to_string(id)}, {"id", "424242"}, {"confirm", "yes"}});
  ASSERT_TRUE(purge);
  EXPECT_EQ(purge->status, 404);
  EXPECT_NE(purge->body.find("nothing was purged"), std::string::npos) << purge->body;
  EXPECT_EQ(Stats().dead, 1) << "the id that exists was not purged either";
  EXPECT_EQ(Stats().ready, 0);

  const std::vector<AuditEntry> rows = AuditRows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].action, "replay");
  EXPECT_EQ(rows[1].dead_letter_ids, "424242");
  EXPECT_EQ(rows[1].outcome, kOutcomeNotFound);
  EXPECT_EQ(rows[1].changed, 0);
  EXPECT_EQ(rows[0].action, "purge");
  EXPECT_EQ(rows[0].outcome, kOutcomeNotFound);
  EXPECT_EQ(rows[0].operator_name, "alice");
}

TEST_F(ConsoleHardeningTest, AnEightMebibyteBodyGivesASmallPageAndDownloadsWhole) {
  std::string payload(8 << 20, '<');  // each byte shown as &lt;: the worst case for the page
  for (size_t i = 0; i < payload.size(); i += 1000) payload[i] = static_cast<char>('a' + (i / 1000) % 26);
  const int64_t id = Park("pay:BIG", payload, "too large");
  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  auto detail = client_->Get("/console/dead/" + std::to_string(id), Browser(&*login, ""));
  ASSERT_TRUE(detail);
  EXPECT_EQ(detail->status, 200);
  EXPECT_LT(detail->body.size(), 512u * 1024) << "a bounded prefix, not 8 MiB of markup";
  EXPECT_NE(detail->body.find("Body (8388608 bytes, the first 65536 shown)"), std::string::npos);
  EXPECT_NE(detail->body.find("href=\"/console/dead/" + std::to_string(id) + "/body\" download"), std::string::npos);
  EXPECT_EQ(detail->body.find("<<"), std::string::npos) << "still escaped";

  auto body = client_->Get("/console/dead/" + std::to_string(id) + "/body", Browser(&*login, ""));
  ASSERT_TRUE(body);
  EXPECT_EQ(body->status, 200);
  EXPECT_TRUE(body->body == payload) << "the download is the body byte-exact, " << body->body.size() << " bytes";
  EXPECT_EQ(body->get_header_value("Content-Type"), "application/octet-stream");
  EXPECT_EQ(body->get_header_value("Content-Disposition"),
            "attachment; filename=\"dead-letter-" + std::to_string(id) + ".bin\"");
  EXPECT_EQ(body->get_header_value("X-Content-Type-Options"), "nosniff");
}

TEST_F(ConsoleHardeningTest, TheCsrfTokenIsTakenFromTheFormBodyOrAHeaderNeverTheUrl) {
  Park("pay:P1", R"({"payment_id":"P1"})", "account missing");
  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  auto in_url = client_->Post("/console/replay?csrf=" + login->csrf, Browser(&*login, Origin()),
                              httplib::Params{{"all", "1"}});
  ASSERT_TRUE(in_url);
  EXPECT_EQ(in_url->status, 403);
  auto fields_in_url = client_->Post("/console/replay?all=1", Browser(&*login, Origin()),
                                     httplib::Params{{"csrf", login->csrf}});
  ASSERT_TRUE(fields_in_url);
  EXPECT_EQ(fields_in_url->status, 400) << "the form's other fields are not read from the URL either";
  EXPECT_EQ(Stats().dead, 1);

  httplib::Headers with_header = Browser(&*login, Origin());
  with_header.emplace("X-CSRF-Token", login->csrf);
  auto header = client_->Post("/console/replay", with_header, httplib::Params{{"all", "1"}});
  ASSERT_TRUE(header);
  EXPECT_EQ(header->status, 200) << header->body;
  EXPECT_EQ(Stats().dead, 0);
}

TEST_F(ConsoleHardeningTest, EveryResponseCarriesTheSecurityHeaders) {
  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  struct Case {
    std::string method, path;
    int status;
    std::string allow;
  };
  for (const Case& c : std::vector<Case>{{"GET", "/console/login", 200, ""},
                                         {"GET", "/console/", 200, ""},
                                         {"GET", "/console/nothing-here", 404, ""},
                                         {"GET", "/console/dead/999", 404, ""},
                                         {"GET", "/elsewhere", 404, ""},
                                         {"GET", "/console/replay", 405, "POST"},
                                         {"DELETE", "/console/", 405, "GET"},
                                         {"PUT", "/console/login", 405, "GET, POST"},
                                         {"POST", "/console/audit", 405, "GET"}}) {
    httplib::Request req;
    req.method = c.method;
    req.path = c.path;
    req.headers = Browser(&*login, Origin());
    auto r = client_->send(req);
    ASSERT_TRUE(r) << c.method << " " << c.path;
    EXPECT_EQ(r->status, c.status) << c.method << " " << c.path;
    EXPECT_EQ(r->get_header_value("Allow"), c.allow) << c.method << " " << c.path;
    EXPECT_EQ(r->get_header_value("Content-Security-Policy"),
              "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; "
              "frame-ancestors 'none'; base-uri 'none'")
        << c.method << " " << c.path;
    EXPECT_EQ(r->get_header_value("X-Content-Type-Options"), "nosniff") << c.method << " " << c.path;
    EXPECT_EQ(r->get_header_value("Referrer-Policy"), "same-origin") << c.method << " " << c.path;
    EXPECT_EQ(r->get_header_value("Cache-Control"), "no-store") << c.method << " " << c.path;
    EXPECT_EQ(r->get_header_value_count("Content-Security-Policy"), 1u) << "set once";
  }
}

}  // namespace
}  // namespace idem::console::testing
