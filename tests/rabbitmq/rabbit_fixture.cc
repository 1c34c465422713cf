#include "rabbitmq/rabbit_fixture.h"

#include <amqp.h>
#include <amqp_tcp_socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace idem::testing {

CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& stdin_text) {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(out[1], 2);
    close(in[1]);
    close(out[0]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  // Small inputs only: written before reading, which a pipe buffer holds.
  if (!stdin_text.empty()) (void)!write(in[1], stdin_text.data(), stdin_text.size());
  close(in[1]);
  CommandResult r;
  char buf[4096];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) r.out.append(buf, static_cast<size_t>(n));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

namespace {

// A logged-in connection with channel 1 open, or nullptr (after a test failure).
amqp_connection_state_t RawConnect(const std::string& base_url) {
  std::string url = base_url;
  amqp_connection_info info;
  if (amqp_parse_url(url.data(), &info) != AMQP_STATUS_OK) {
    ADD_FAILURE() << "bad URL " << base_url;
    return nullptr;
  }
  amqp_connection_state_t conn = amqp_new_connection();
  amqp_socket_t* socket = amqp_tcp_socket_new(conn);
  if (amqp_socket_open(socket, info.host, info.port) != AMQP_STATUS_OK ||
      amqp_login(conn, info.vhost, 0, 131072, 0, AMQP_SASL_METHOD_PLAIN, info.user, info.password).reply_type !=
          AMQP_RESPONSE_NORMAL) {
    ADD_FAILURE() << "cannot connect to " << base_url;
    amqp_destroy_connection(conn);
    return nullptr;
  }
  amqp_channel_open(conn, 1);
  return conn;
}

void RawClose(amqp_connection_state_t conn) {
  amqp_channel_close(conn, 1, AMQP_REPLY_SUCCESS);
  amqp_connection_close(conn, AMQP_REPLY_SUCCESS);
  amqp_destroy_connection(conn);
}

}  // namespace

std::optional<RawGet> RawTakeOne(const std::string& base_url, const std::string& queue, bool reject) {
  amqp_connection_state_t conn = RawConnect(base_url);
  if (!conn) return std::nullopt;
  std::optional<RawGet> got;
  amqp_rpc_reply_t r = amqp_basic_get(conn, 1, amqp_cstring_bytes(queue.c_str()), 0);
  if (r.reply_type == AMQP_RESPONSE_NORMAL && r.reply.id == AMQP_BASIC_GET_OK_METHOD) {
    auto* ok = static_cast<amqp_basic_get_ok_t*>(r.reply.decoded);
    const uint64_t tag = ok->delivery_tag;
    RawGet g;
    g.redelivered = ok->redelivered;
    g.routing_key.assign(static_cast<char*>(ok->routing_key.bytes), ok->routing_key.len);
    amqp_message_t msg;
    if (amqp_read_message(conn, 1, &msg, 0).reply_type == AMQP_RESPONSE_NORMAL) {
      g.body.assign(static_cast<char*>(msg.body.bytes), msg.body.len);
      amqp_destroy_message(&msg);
      if (reject) amqp_basic_reject(conn, 1, tag, /*requeue=*/0);
      else amqp_basic_ack(conn, 1, tag, 0);
      got = g;
    }
  }
  RawClose(conn);
  return got;
}

bool RawQueueExists(const std::string& base_url, const std::string& queue) {
  amqp_connection_state_t conn = RawConnect(base_url);
  if (!conn) return false;
  amqp_queue_declare(conn, 1, amqp_cstring_bytes(queue.c_str()), /*passive=*/1, 0, 0, 0, amqp_empty_table);
  const bool exists = amqp_get_rpc_reply(conn).reply_type == AMQP_RESPONSE_NORMAL;
  // A 404 closed channel 1: only the connection is left to close.
  if (exists) amqp_channel_close(conn, 1, AMQP_REPLY_SUCCESS);
  amqp_connection_close(conn, AMQP_REPLY_SUCCESS);
  amqp_destroy_connection(conn);
  return exists;
}

void RabbitTest::SetUp() {
  const char* url = std::getenv("IDEM_TEST_AMQP_URL");
  base_url_ = url ? url : "";
  if (base_url_.empty()) return;
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  // Unique per test and per run: a re-run never sees an earlier run's leftovers.
  queue_ = std::string("t.") + info->name() + "." + std::to_string(getpid()) + "." +
           std::to_string(Env::Default()->Random64() % 1'000'000);
  auto store = OpenSqliteStore(dir_.File("store.db"), {}, Env::Default());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  store_ = std::move(*store);
  CreateEffectTables(*store_);
}

std::string RabbitTest::Url(const std::string& params) const {
  return base_url_ + "?queue=" + queue_ + (params.empty() ? "" : "&" + params);
}

std::unique_ptr<Broker> RabbitTest::OpenQueue(const std::string& params) {
  auto b = OpenBroker(Url(params), BrokerOptions{}, Env::Default());
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? std::move(*b) : nullptr;
}

PipelineOptions RabbitTest::Options() {
  PipelineOptions o;
  o.max_linger_ms = 50;
  o.retry.ladder_ms = {100, 200, 300};
  o.retry.max_attempts = 4;
  o.unavailable_backoff_min_ms = 50;
  o.unavailable_backoff_max_ms = 500;
  return o;
}

std::unique_ptr<Pipeline> RabbitTest::NewPipeline(Source* source, PipelineOptions options) {
  auto p = std::make_unique<Pipeline>(source, store_.get(), Env::Default(), options);
  Status s = p->Register(PayHandler());
  EXPECT_TRUE(s.ok()) << s.ToString();
  return p;
}

void RabbitTest::AmqpToolsPublish(const std::string& body, const std::string& topic) {
  CommandResult r = RunCommand({"amqp-publish", "-u", base_url_, "-e", queue_, "-r", topic, "-p",
                                "-C", "application/json", "-b", body});
  ASSERT_EQ(r.status, 0) << "amqp-publish failed (is amqp-tools installed?)";
}

void RabbitTest::Publish(const std::vector<std::string>& bodies, const std::string& topic) {
  auto broker = OpenQueue();
  ASSERT_NE(broker, nullptr);
  std::vector<Message> batch;
  for (const std::string& b : bodies) {
    Message m;
    m.topic = topic;
    m.payload = b;
    batch.push_back(m);
  }
  Status s = broker->publisher().PublishBatch(batch);
  ASSERT_TRUE(s.ok()) << s.ToString();
}

bool RabbitTest::RunUntil(Pipeline& pipeline, const std::function<bool()>& done, int64_t timeout_ms) {
  Env* env = Env::Default();
  const int64_t deadline_us = env->MonotonicMicros() + timeout_ms * 1000;
  while (!done()) {
    if (env->MonotonicMicros() > deadline_us) return false;
    (void)pipeline.RunOnce();  // waits for messages inside Poll (max_linger_ms)
  }
  return true;
}

QueueStats RabbitTest::Stats() {
  auto broker = OpenQueue();
  if (!broker) return {};
  auto s = broker->Stats();
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : QueueStats{};
}

std::vector<DeadLetter> RabbitTest::Dead() {
  auto broker = OpenQueue();
  if (!broker) return {};
  auto d = broker->dead_letters()->List(1000, 0);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() ? *d : std::vector<DeadLetter>{};
}

}  // namespace idem::testing
