// The console's HTTP layer as a browser meets it: logins, expiry, what an
// anonymous, read-only or cross-site request may do (nothing), replay and purge
// audited under the logged-in operator, and a hostile body that stays text.
#include "console/console_fixture.h"

namespace idem::console::testing {
namespace {

using ConsoleHttpTest = ConsoleFixture;

TEST_F(ConsoleHttpTest, GoodLoginSetsAStrictHttpOnlyCookieAndBadLoginsDoNot) {
  Park("pay:P1", R"({"payment_id":"P1"})", "account A-9 does not exist");
  auto bad = client_->Post("/console/login", Browser(nullptr, Origin()),
                           httplib::Params{{"name", "alice"}, {"secret", "wrong"}});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 401);
  EXPECT_FALSE(bad->has_header("Set-Cookie"));
  auto unknown = client_->Post("/console/login", Browser(nullptr, Origin()),
                               httplib::Params{{"name", "mallory"}, {"secret", "alice-secret"}});
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 401);

  auto good = client_->Post("/console/login", Browser(nullptr, Origin()),
                            httplib::Params{{"name", "alice"}, {"secret", "alice-secret"}});
  ASSERT_TRUE(good);
  EXPECT_EQ(good->status, 303);
  const std::string cookie = good->get_header_value("Set-Cookie");
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos) << cookie;
  EXPECT_NE(cookie.find("SameSite=Strict"), std::string::npos) << cookie;
  EXPECT_TRUE(std::regex_search(cookie, std::regex("^idem_session=[0-9a-f]{64};"))) << cookie;

  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  auto list = client_->Get("/console/", Browser(&*login, ""));
  ASSERT_TRUE(list);
  EXPECT_EQ(list->status, 200);
  EXPECT_NE(list->body.find("pay:P1"), std::string::npos);
  EXPECT_NE(list->body.find("account A-9 does not exist"), std::string::npos);
  EXPECT_NE(list->body.find("alice (operator)"), std::string::npos);
}

TEST_F(ConsoleHttpTest, AnonymousRequestsAreRefusedAndChangeNothing) {
  const int64_t id = Park("pay:P1", R"({"payment_id":"P1"})", "account missing");
  auto page = client_->Get("/console/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 303);
  EXPECT_EQ(page->get_header_value("Location"), "/console/login");
  auto body = client_->Get("/console/dead/" + std::to_string(id) + "/body");
  ASSERT_TRUE(body);
  EXPECT_EQ(body->status, 401);
  EXPECT_EQ(body->body.find("payment_id"), std::string::npos);
  for (const char* path : {"/console/replay", "/console/purge"}) {
    auto r = Post(path, nullptr, {{"all", "1"}, {"confirm", "yes"}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 401) << path;
  }
  auto forged = Login{"idem_session=" + std::string(64, 'a'), ""};
  auto r = Post("/console/replay", &forged, {{"all", "1"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(Stats().dead, 1);
  EXPECT_EQ(Stats().ready, 0);
}

TEST_F(ConsoleHttpTest, ASessionExpiresByTheClock) {
  Park("pay:P1", R"({"payment_id":"P1"})", "account missing");
  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  clock_.now_ms += kTtlMs - 1;
  EXPECT_EQ(client_->Get("/console/", Browser(&*login, ""))->status, 200);
  clock_.now_ms += 1;
  auto r = client_->Get("/console/", Browser(&*login, ""));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 303) << "expired: back to the login form";
  EXPECT_EQ(Post("/console/replay", &*login, {{"all", "1"}})->status, 401);
  EXPECT_EQ(Stats().dead, 1);
}

TEST_F(ConsoleHttpTest, CrossSiteOrTokenlessPostsAreRefused) {
  Park("pay:P1", R"({"payment_id":"P1"})", "account missing");
  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  ASSERT_FALSE(login->csrf.empty());
  auto evil = Post("/console/replay", &*login, {{"all", "1"}}, "http://evil.example");
  ASSERT_TRUE(evil);
  EXPECT_EQ(evil->status, 403);
  auto no_token = client_->Post("/console/replay", Browser(&*login, Origin()), httplib::Params{{"all", "1"}});
  ASSERT_TRUE(no_token);
  EXPECT_EQ(no_token->status, 403);
  auto stale = Post("/console/replay", &*login, {{"all", "1"}, {"csrf", std::string(64, '0')}});
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->status, 403);
  auto no_origin = client_->Post("/console/replay", Browser(&*login, ""), httplib::Params{{"all", "1"}, {"csrf", login->csrf}});
  ASSERT_TRUE(no_origin);
  EXPECT_EQ(no_origin->status, 403) << "neither Origin nor Referer: not provably same-origin";
  auto cross_login = client_->Post("/console/login", Browser(nullptr, "http://evil.example"),
                                   httplib::Params{{"name", "alice"}, {"secret", "alice-secret"}});
  ASSERT_TRUE(cross_login);
  EXPECT_EQ(cross_login->status, 403);
  EXPECT_EQ(Stats().dead, 1);
  EXPECT_TRUE(console_ != nullptr);
  auto audit = client_->Get("/console/audit", Browser(&*login, ""));
  EXPECT_NE(audit->body.find("No replay or purge has been audited yet"), std::string::npos);
}

TEST_F(ConsoleHttpTest, ReadOnlyOperatorsSeeButCannotReplayOrPurge) {
  const int64_t id = Park("pay:P1", R"({"payment_id":"P1"})", "account missing");
  auto login = LogIn("vera", "vera-read-only");
  ASSERT_TRUE(login);
  auto detail = client_->Get("/console/dead/" + std::to_string(id), Browser(&*login, ""));
  ASSERT_TRUE(detail);
  EXPECT_EQ(detail->status, 200);
  EXPECT_EQ(detail->body.find("action=\"/console/replay\""), std::string::npos) << "no buttons it may not use";
  for (const char* path : {"/console/replay", "/console/purge"}) {
    auto r = Post(path, &*login, {{"id", std::to_string(id)}, {"confirm", "yes"}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 403) << path;
    EXPECT_NE(r->body.find("read-only"), std::string::npos);
  }
  EXPECT_EQ(Stats().dead, 1);
}

TEST_F(ConsoleHttpTest, ReplayGoesBackToTheMainQueueAuditedUnderTheLogin) {
  const int64_t a = Park("pay:P1", R"({"payment_id":"P1"})", "account missing");
  const int64_t b = Park("pay:P2", R"({"payment_id":"P2"})", "account missing");
  Park("pay:P3", R"({"payment_id":"P3"})", "account missing");
  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  httplib::Params selection{{"id", std::to_string(a)}, {"id", std::to_string(b)}};
  auto r = Post("/console/replay", &*login, selection);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_NE(r->body.find("Replayed 2 message(s)"), std::string::npos) << r->body;
  EXPECT_EQ(Stats().dead, 1);
  EXPECT_EQ(Stats().ready, 2);
  auto rest = Post("/console/replay", &*login, {{"all", "1"}});
  ASSERT_TRUE(rest);
  EXPECT_NE(rest->body.find("Replayed 1 message(s)"), std::string::npos);
  EXPECT_EQ(Stats().dead, 0);

  const std::vector<AuditEntry> rows = AuditRows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].operator_name, "alice");
  EXPECT_EQ(rows[1].authenticated_by, "console login");
  EXPECT_EQ(rows[1].dead_letter_ids, std::to_string(a) + "," + std::to_string(b));
  EXPECT_EQ(rows[1].changed, 2);
  EXPECT_EQ(rows[1].at_ms, clock_.now_ms.load()) << "the time comes from the Env clock";
  EXPECT_EQ(rows[0].dead_letter_ids, "all");
  auto page = client_->Get("/console/audit", Browser(&*login, ""));
  ASSERT_TRUE(page);
  EXPECT_NE(page->body.find("<td>alice</td><td>console login</td><td>replay</td>"), std::string::npos) << page->body;
}

TEST_F(ConsoleHttpTest, PurgeAsksForConfirmationFirst) {
  const int64_t id = Park("pay:P1", R"({"payment_id":"P1"})", "account missing");
  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  auto ask = Post("/console/purge", &*login, {{"id", std::to_string(id)}});
  ASSERT_TRUE(ask);
  EXPECT_EQ(ask->status, 200);
  EXPECT_NE(ask->body.find("Delete for good"), std::string::npos);
  EXPECT_NE(ask->body.find("name=\"confirm\" value=\"yes\""), std::string::npos);
  EXPECT_EQ(Stats().dead, 1) << "asking is not purging";
  auto done = Post("/console/purge", &*login, {{"id", std::to_string(id)}, {"confirm", "yes"}});
  ASSERT_TRUE(done);
  EXPECT_NE(done->body.find("Purged 1 dead letter(s)"), std::string::npos) << done->body;
  EXPECT_EQ(Stats().dead, 0);
  EXPECT_EQ(Stats().ready, 0);
}

TEST_F(ConsoleHttpTest, AHostileBodyIsShownAsEscapedTextAndDownloadsByteExact) {
  const std::string payload = "{\"note\":\"<script>alert('x')</script>\",\"bad\":\"\xff\xfe\"}\x01";
  const int64_t id = Park("pay:<img src=x onerror=alert(1)>", payload, "reason <b>bold</b>");
  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  for (const std::string& path : {std::string("/console/"), "/console/dead/" + std::to_string(id)}) {
    auto r = client_->Get(path, Browser(&*login, ""));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body.find("<script"), std::string::npos) << path;
    EXPECT_EQ(r->body.find("<img"), std::string::npos) << path;
    EXPECT_EQ(r->body.find("<b>bold"), std::string::npos) << path;
    EXPECT_NE(r->body.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos) << path;
    EXPECT_NE(r->get_header_value("Content-Security-Policy").find("default-src 'none'"), std::string::npos);
  }
  auto detail = client_->Get("/console/dead/" + std::to_string(id), Browser(&*login, ""));
  EXPECT_NE(detail->body.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(detail->body.find("\\xff\\xfe"), std::string::npos) << "invalid UTF-8 shown escaped";
  EXPECT_NE(detail->body.find("\\x01"), std::string::npos);
  EXPECT_NE(detail->body.find("x-origin"), std::string::npos) << "headers are shown";

  auto body = client_->Get("/console/dead/" + std::to_string(id) + "/body", Browser(&*login, ""));
  ASSERT_TRUE(body);
  EXPECT_EQ(body->status, 200);
  EXPECT_EQ(body->get_header_value("Content-Type"), "application/octet-stream");
  EXPECT_NE(body->get_header_value("Content-Disposition").find("attachment"), std::string::npos);
  EXPECT_EQ(body->body, payload);
}

TEST_F(ConsoleHttpTest, TheLogNamesOperatorsButNeverSecretsSessionsTokensOrBodies) {
  const int64_t id = Park("pay:P1", R"({"payment_id":"P1","card":"4111-1111"})", "account missing");
  ASSERT_FALSE(LogIn("alice", "not-alices-secret"));
  ASSERT_FALSE(LogIn("alice-secret", "oops"));  // a secret typed into the name field
  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  ASSERT_EQ(Post("/console/replay", &*login, {{"id", std::to_string(id)}}, "http://evil.example")->status, 403);
  ASSERT_EQ(Post("/console/replay", &*login, {{"id", std::to_string(id)}})->status, 200);
  std::lock_guard<std::mutex> lock(log_mu_);
  std::string all;
  for (const std::string& line : log_) all += line + "\n";
  EXPECT_NE(all.find(R"("event":"console_login","fields":{"ok":false,"operator":"alice"})"), std::string::npos) << all;
  EXPECT_NE(all.find(R"("event":"console_login","fields":{"ok":true,"operator":"alice"})"), std::string::npos) << all;
  EXPECT_NE(all.find(R"("why":"not same-origin")"), std::string::npos) << all;
  EXPECT_NE(all.find(R"("event":"console_replay")"), std::string::npos) << all;
  for (const std::string& secret : {std::string("alice-secret"), std::string("not-alices-secret"),
                                    login->cookie.substr(login->cookie.find('=') + 1), login->csrf,
                                    std::string("4111-1111")})
    EXPECT_EQ(all.find(secret), std::string::npos) << "logged: " << secret << "\n" << all;
}

TEST_F(ConsoleHttpTest, TheListPagesFiftyAtATime) {
  std::vector<int64_t> ids;
  for (int i = 1; i <= 51; ++i) ids.push_back(Park("pay:K" + std::to_string(i) + ".", "{}", "account missing"));
  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  auto first = client_->Get("/console/", Browser(&*login, ""));
  ASSERT_TRUE(first);
  EXPECT_NE(first->body.find("pay:K50."), std::string::npos);
  EXPECT_EQ(first->body.find("pay:K51."), std::string::npos);
  const std::string next = "/console/?after=" + std::to_string(ids[49]);
  EXPECT_NE(first->body.find("href=\"" + next + "\""), std::string::npos) << "a link to the next page";
  auto second = client_->Get(next, Browser(&*login, ""));
  ASSERT_TRUE(second);
  EXPECT_NE(second->body.find("pay:K51."), std::string::npos);
  EXPECT_EQ(second->body.find("pay:K50."), std::string::npos);
  EXPECT_EQ(second->body.find("Next page"), std::string::npos);
}

TEST_F(ConsoleHttpTest, LogoutEndsTheSession) {
  auto login = LogIn("alice", "alice-secret");
  ASSERT_TRUE(login);
  auto out = Post("/console/logout", &*login, {});
  ASSERT_TRUE(out);
  EXPECT_EQ(out->status, 303);
  EXPECT_EQ(client_->Get("/console/", Browser(&*login, ""))->status, 303);
}

}  // namespace
}  // namespace idem::console::testing
