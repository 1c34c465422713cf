// A console served in-process on a free port over a broker (the embedded queue
// unless a test names another) and a SQLite store, with an httplib client that logs in as the browser would
// (cookie, the form's CSRF token, this host as Origin), and a clock the test
// moves to expire sessions.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>
#include <optional>
#include <regex>
#include <thread>

#include "console/console_server.h"
#include "console/secret_hash.h"
#include "idem/broker.h"
#include "testing/test_util.h"

namespace idem::console::testing {

// Real time for everything but the wall clock, which the test sets.
class SetClock : public Env {
 public:
  int64_t NowMs() override { return now_ms.load(); }
  int64_t MonotonicMicros() override { return Env::Default()->MonotonicMicros(); }
  void SleepMs(int64_t ms) override { Env::Default()->SleepMs(ms); }
  uint64_t Random64() override { return Env::Default()->Random64(); }
  TaskId ScheduleAfter(int64_t delay_ms, std::function<void()> task) override {
    return Env::Default()->ScheduleAfter(delay_ms, std::move(task));
  }
  bool Cancel(TaskId id) override { return Env::Default()->Cancel(id); }
  std::atomic<int64_t> now_ms{1'790'000'000'000};
};

// What a logged-in browser holds.
struct Login {
  std::string cookie;  // "idem_session=…"
  std::string csrf;
};

class ConsoleFixture : public ::testing::Test {
 protected:
  static constexpr int64_t kTtlMs = 600'000;

  // The broker whose dead letters the console shows; empty skips the test.
  virtual std::string BrokerUrl() { return "queue:" + dir_.File("q.db"); }

  void SetUp() override {
    const std::string url = BrokerUrl();
    if (url.empty()) GTEST_SKIP() << "no broker for this test (see its BrokerUrl)";
    auto q = OpenBroker(url, {}, Env::Default());
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    queue_ = std::move(*q);
    ConsoleSettings settings;
    settings.broker_url = url;
    settings.store_url = "sqlite:" + dir_.File("s.db");
    settings.log = [this](const std::string& event, const nlohmann::json& fields) {
      std::lock_guard<std::mutex> lock(log_mu_);
      log_.push_back(nlohmann::json{{"event", event}, {"fields", fields}}.dump());
    };
    settings.config.enabled = true;
    settings.config.session_ttl_ms = kTtlMs;
    settings.config.operators = {{"alice", Role::kOperator, Hash("alice-secret"), ""},
                                 {"vera", Role::kReadOnly, Hash("vera-read-only"), ""}};
    auto console = Console::Open(settings, &clock_);
    ASSERT_TRUE(console.ok()) << console.status().ToString();
    console_ = std::move(*console);
    console_->Mount(server_);
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
  }
  void TearDown() override {
    if (!thread_.joinable()) return;
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  static std::string Hash(const std::string& secret) { return HashSecret(secret, kMinHashIterations).value(); }

  int64_t Park(const std::string& key, const std::string& payload, const std::string& reason) {
    Message m;
    m.topic = "pay";
    m.key = key;
    m.payload = payload;
    m.headers["x-origin"] = "test";
    auto id = queue_->dead_letters()->ParkRejected(m, reason);
    EXPECT_TRUE(id.ok());
    return id.ok() ? *id : 0;
  }
  QueueStats Stats() { return queue_->Stats().value(); }
  // The console's audit rows in its store, newest first (empty when it cannot be read: the test then fails).
  std::vector<AuditEntry> AuditRows() {
    auto store = OpenSqliteStore(dir_.File("s.db"), {}, Env::Default());
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!store.ok()) return {};
    auto rows = AuditLog::Open(store->get())->List(100);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<AuditEntry>{};
  }

  std::string Origin() const { return "http://127.0.0.1:" + std::to_string(port_); }
  httplib::Headers Browser(const Login* login, const std::string& origin) const {
    httplib::Headers h;
    if (login) h.emplace("Cookie", login->cookie);
    if (!origin.empty()) h.emplace("Origin", origin);
    return h;
  }

  // Logs in through the form; nullopt when refused.
  std::optional<Login> LogIn(const std::string& name, const std::string& secret) {
    auto r = client_->Post("/console/login", Browser(nullptr, Origin()), httplib::Params{{"name", name}, {"secret", secret}});
    if (!r || r->status != 303) return std::nullopt;
    const std::string set = r->get_header_value("Set-Cookie");
    Login login{set.substr(0, set.find(';')), ""};
    auto page = client_->Get("/console/", Browser(&login, ""));
    if (!page || page->status != 200) return std::nullopt;
    std::smatch m;
    if (std::regex_search(page->body, m, std::regex("name=\"csrf\" value=\"([0-9a-f]+)\""))) login.csrf = m[1];
    return login;
  }

  httplib::Result Post(const std::string& path, const Login* login, httplib::Params form,
                       const std::string& origin = "") {
    if (login && !login->csrf.empty() && form.find("csrf") == form.end()) form.emplace("csrf", login->csrf);
    return client_->Post(path, Browser(login, origin.empty() ? Origin() : origin), form);
  }

  idem::testing::TempDir dir_;
  SetClock clock_;
  std::unique_ptr<Broker> queue_;
  std::unique_ptr<Console> console_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::unique_ptr<httplib::Client> client_;
  std::mutex log_mu_;
  std::vector<std::string> log_;  // what the console logged, one JSON object per line
};

}  // namespace idem::console::testing
