#include "service/config.h"

#include <fstream>
#include <sstream>

#include "connect/known_schemes.h"
#include "console/secret_hash.h"
#include "service/handler_config_reader.h"
#include "service/toml_reader.h"
#include "source/broker_url.h"

namespace idem::service {
namespace {

constexpr int64_t kDayMs = 24LL * 3600 * 1000;
constexpr int64_t kMaxDelayMs = 30 * kDayMs;  // RabbitMQ's per-queue TTL carries delays and tops out near 49 days

// A URL whose scheme no backend knows is refused here, at its position, by
// --check and at start alike: "sqlit:store.db" would otherwise open a new file
// of that name and consume nothing.
void CheckUrl(TableReader& t, const Status& s) {
  if (!s.ok()) t.Fail(t.Node("url"), t.name() + " url: " + s.message());
}

void ReadBroker(TableReader t, ServiceConfig& c) {
  c.broker_url = t.RequiredString("url", "the queue file or broker URL, e.g. \"queue:payments-queue.db\"");
  CheckUrl(t, connect::CheckBrokerUrl(c.broker_url));
  c.visibility_timeout_ms = t.Int("visibility_timeout_ms", c.visibility_timeout_ms, 1'000, kMaxDelayMs);
  c.prefetch = static_cast<size_t>(t.Int("prefetch", 0, 1, 65'535));  // 0: three batches (worker.cc)
  t.Finish();
}

void ReadStore(TableReader t, ServiceConfig& c) {
  c.store_url = t.RequiredString("url", "the store URL, e.g. \"sqlite:payments.db\" or \"postgresql://…\"");
  CheckUrl(t, connect::CheckStoreUrl(c.store_url));
  c.setup_sql = t.String("setup_sql").value_or("");
  c.create_schema = t.Bool("create_schema", c.create_schema);
  t.Finish();
}

void ReadFastFilter(TableReader t, ServiceConfig& c) {
  c.fast_filter_url = t.RequiredString("url", "the Redis URL, e.g. \"redis://127.0.0.1:6379\"");
  CheckUrl(t, connect::CheckFastFilterUrl(c.fast_filter_url));
  c.redis_ttl_ms = t.Int("ttl_ms", c.redis_ttl_ms, 1'000, 365 * kDayMs);
  c.outage_policy = t.Choice("outage_policy", "closed", {"closed", "open"}) == "open" ? FilterOutagePolicy::kOpen
                                                                                     : FilterOutagePolicy::kClosed;
  if (auto p = t.String("key_prefix")) c.key_prefix = *p;
  t.Finish();
}

void ReadServiceTable(TableReader t, ServiceConfig& c) {
  if (auto l = t.String("http_listen")) {
    if (l->rfind(':') == std::string::npos || l->back() == ':')
      t.Fail(t.Node("http_listen"), "[service] http_listen must be \"HOST:PORT\", e.g. \"127.0.0.1:9464\"");
    c.http_listen = *l;
  }
  c.startup_timeout_ms = t.Int("startup_timeout_ms", c.startup_timeout_ms, 0, 3'600'000);
  c.shutdown_timeout_ms = t.Int("shutdown_timeout_ms", c.shutdown_timeout_ms, 100, 3'600'000);
  c.abandon_timeout_ms = t.Int("abandon_timeout_ms", c.abandon_timeout_ms, 100, 600'000);
  c.log_decisions = t.Bool("log_decisions", c.log_decisions);
  t.Finish();
}

void ReadRetention(TableReader t, ServiceConfig& c) {
  c.retention.where = t.Where();
  c.retention.window_days = t.Int("window_days", c.retention.window_days, 1, 36'500);
  c.retention.sweep_interval_ms = t.Int("sweep_interval_ms", c.retention.sweep_interval_ms, 0, 30 * kDayMs);
  c.retention.sweep_batch_rows = t.Int("sweep_batch_rows", c.retention.sweep_batch_rows, 1, 100'000);
  t.Finish();
}

// [console] and its [[console.operator]] tables: who may log in, with which role.
void ReadConsole(TableReader t, ServiceConfig& c) {
  console::ConsoleConfig& k = c.console;
  k.enabled = true;
  k.session_ttl_ms = t.Int("session_ttl_ms", k.session_ttl_ms, 60'000, 7 * kDayMs);
  for (TableReader& o : t.TableArray("operator")) {
    console::OperatorConfig op;
    op.where = o.Where();
    op.name = o.RequiredString("name", "the operator's login name, recorded in the audit");
    op.role = o.Choice("role", "read-only", {"read-only", "operator"}) == "operator" ? console::Role::kOperator
                                                                                    : console::Role::kReadOnly;
    op.secret_hash = o.RequiredString("secret_hash", "the output of `idem console hash-secret`");
    if (std::string why = console::CheckHashFormat(op.secret_hash); !why.empty())
      o.Fail(o.Node("secret_hash"), o.name() + " secret_hash is not usable: " + why +
                                        "; make one with `idem console hash-secret` (it reads the secret on stdin)");
    if (const console::OperatorConfig* first = k.Find(op.name))
      throw ConfigError(op.where + ": operator \"" + op.name + "\" is declared already at " + first->where);
    o.Finish();
    k.operators.push_back(std::move(op));
  }
  if (k.operators.empty())
    t.Fail(nullptr, "[console] needs at least one [[console.operator]] with name, role and secret_hash");
  t.Finish();
}

// [outbox]: the relay that publishes what handlers emitted, run in this process.
void ReadOutbox(TableReader t, ServiceConfig& c) {
  OutboxConfig& o = c.outbox;
  o.where = t.Where();
  o.relay = t.Bool("relay", o.relay);
  o.interval_ms = t.Int("interval_ms", o.interval_ms, 1, 60'000);
  o.batch = t.Int("batch", o.batch, 1, 10'000);
  o.max_attempts = static_cast<int>(t.Int("max_attempts", o.max_attempts, 1, 1'000));
  o.claim_ms = t.Int("claim_ms", o.claim_ms, 1'000, kDayMs);
  o.per_key_order = t.Bool("per_key_order", o.per_key_order);
  t.Finish();
}

// retry_mode: "ordered" holds a key's later messages in the consumer while it
// retries in place, which only a Kafka partition lets idem do.
RetryMode ReadRetryMode(TableReader& t, const std::string& group, const std::string& broker_url) {
  if (!t.Has("retry_mode")) return RetryMode::kBrokerDefault;
  const std::string mode = t.Choice("retry_mode", "ordered", {"ordered", "retry_topics"});
  auto broker = ParseBrokerUrl(broker_url);
  if (mode == "ordered" && broker.ok() && broker->kind != BrokerUrl::Kind::kKafka)
    t.Fail(t.Node("retry_mode"), t.name() + " (group \"" + group + "\") retry_mode = \"ordered\" needs a Kafka "
           "broker: the embedded queue and RabbitMQ retry through their delay tier, where a key's later messages "
           "can overtake a retried one; remove retry_mode for this broker");
  return mode == "ordered" ? RetryMode::kOrdered : RetryMode::kRetryTopics;
}

ConsumerConfig ReadConsumer(TableReader t, const std::vector<StateMachineConfig>& machines,
                            const std::string& broker_url) {
  ConsumerConfig k;
  k.where = t.Where();
  k.group = t.RequiredString("group", "the consumer group: records are unique per group and key");
  k.workers = static_cast<int>(t.Int("workers", k.workers, 1, 64));
  k.batch_size = static_cast<size_t>(t.Int("batch_size", static_cast<int64_t>(k.batch_size), 1, 10'000));
  k.max_linger_ms = t.Int("max_linger_ms", k.max_linger_ms, 0, 60'000);
  k.lease_ms = t.Int("lease_ms", k.lease_ms, 1'000, kMaxDelayMs);
  k.retry_delays_ms = t.IntArray("retry_delays_ms", k.retry_delays_ms, 0, kMaxDelayMs);
  k.max_attempts = static_cast<int>(t.Int("max_attempts", k.max_attempts, 1, 1'000));
  k.retry_mode = ReadRetryMode(t, k.group, broker_url);
  k.handler_sets = t.StringArray("handlers");
  for (TableReader& h : t.TableArray("handler")) k.handlers.push_back(ReadDeclaredHandler(h, machines));
  if (k.handler_sets.empty() && k.handlers.empty())
    t.Fail(t.Has("handlers") ? t.Node("handlers") : nullptr,
           t.name() + " (group \"" + k.group + "\") needs handlers = [\"NAME\", …] (C++ handler sets) or "
           "[[consumer.handler]] tables (declarative handlers)");
  t.Finish();
  return k;
}

ServiceConfig Read(const toml::table& root, const std::string& path) {
  ServiceConfig c;
  c.path = path;
  TableReader t(root, path, "the file");
  auto broker = t.Table("broker");
  if (!broker) t.Fail(nullptr, "missing [broker] with url = \"…\" (the queue file or broker URL)");
  ReadBroker(*broker, c);
  auto store = t.Table("store");
  if (!store) t.Fail(nullptr, "missing [store] with url = \"…\" (the store URL)");
  ReadStore(*store, c);
  if (auto f = t.Table("fast_filter")) ReadFastFilter(*f, c);
  if (auto s = t.Table("service")) ReadServiceTable(*s, c);
  if (auto r = t.Table("retention")) ReadRetention(*r, c);
  if (auto k = t.Table("console")) ReadConsole(*k, c);
  if (auto o = t.Table("outbox")) ReadOutbox(*o, c);
  for (TableReader& m : t.TableArray("state_machine")) {
    c.state_machines.push_back(ReadStateMachine(m));
    for (size_t j = 0; j + 1 < c.state_machines.size(); ++j)
      if (c.state_machines[j].name == c.state_machines.back().name)
        throw ConfigError(c.state_machines.back().where + ": a [[state_machine]] named \"" +
                          c.state_machines.back().name + "\" is declared already at " + c.state_machines[j].where);
  }
  for (TableReader& k : t.TableArray("consumer")) c.consumers.push_back(ReadConsumer(k, c.state_machines, c.broker_url));
  if (c.consumers.empty()) t.Fail(nullptr, "no [[consumer]] table: declare at least one consumer group");
  for (size_t i = 0; i < c.consumers.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (c.consumers[i].group == c.consumers[j].group)
        throw ConfigError(c.consumers[i].where + ": consumer group \"" + c.consumers[i].group +
                          "\" is declared twice (first at " + c.consumers[j].where + "): give each its own group");
  t.Finish();
  return c;
}

}  // namespace

Result<ServiceConfig> ParseConfig(std::string_view text, const std::string& path) {
  try {
    toml::table root = toml::parse(text, std::string_view(path));
    return Read(root, path);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    return Status::InvalidArgument(path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                                   ": not valid TOML: " + std::string(e.description()));
  } catch (const ConfigError& e) {
    return Status::InvalidArgument(e.what());
  }
}

Result<ServiceConfig> LoadConfig(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read the configuration file '" + path + "': check the path");
  std::ostringstream text;
  text << in.rdbuf();
  return ParseConfig(text.str(), path);
}

}  // namespace idem::service
