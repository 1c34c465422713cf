#include "source/kafka/client_config.h"

#include <string>
#include <string_view>
#include <utility>

#include "idem/backend_log.h"

namespace idem::kafka {
namespace {

// librdkafka's syslog levels: 0–3 errors, 4 warning, 5–6 notice/info, 7 debug.
BackendLogLevel LevelOf(int syslog_level) {
  if (syslog_level <= 3) return BackendLogLevel::kError;
  if (syslog_level == 4) return BackendLogLevel::kWarn;
  if (syslog_level <= 6) return BackendLogLevel::kInfo;
  return BackendLogLevel::kDebug;
}

// A line about one broker begins with its name ("127.0.0.1:9092/1: Connect to
// … failed"): that name, and the text after it. Broker names hold a '/'
// (HOST:PORT/ID, HOST:PORT/bootstrap); a line without one is the client's own.
std::pair<std::string_view, std::string_view> SplitBroker(std::string_view text) {
  if (text.rfind("[thrd:", 0) == 0) {  // log.thread.name=true, when passed as rdkafka.log.thread.name
    const size_t end = text.find("]: ");
    if (end != std::string_view::npos) text.remove_prefix(end + 3);
  }
  const size_t colon = text.find(": ");
  if (colon == std::string_view::npos) return {"", text};
  const std::string_view name = text.substr(0, colon);
  if (name.find('/') == std::string_view::npos || name.find(' ') != std::string_view::npos) return {"", text};
  return {name, text.substr(colon + 2)};
}

// Runs on librdkafka's own threads; the backend log hook is thread-safe.
void OnClientLog(const rd_kafka_t* rk, int level, const char* facility, const char* line) {
  const auto [broker, text] = SplitBroker(line);
  BackendLog(LevelOf(level), "librdkafka", "kafka_client_log", text,
             {{"facility", facility}, {"broker", broker}, {"client", rd_kafka_name(rk)}});
}

// Runs inside the poll of the client it is about. librdkafka retries what it
// reports here by itself (a broker down, a request timed out), so only a fatal
// error (the client is unusable) is an error; the rest are warnings.
void OnClientError(rd_kafka_t* rk, int err, const char* reason, void* /*opaque*/) {
  const auto [broker, text] = SplitBroker(reason);
  const auto code = static_cast<rd_kafka_resp_err_t>(err);
  BackendLog(code == RD_KAFKA_RESP_ERR__FATAL ? BackendLogLevel::kError : BackendLogLevel::kWarn, "librdkafka",
             "kafka_client_error", text,
             {{"code", rd_kafka_err2name(code)}, {"broker", broker}, {"client", rd_kafka_name(rk)}});
}

}  // namespace

void RouteClientLog(rd_kafka_conf_t* conf) {
  rd_kafka_conf_set_log_cb(conf, &OnClientLog);
  rd_kafka_conf_set_error_cb(conf, &OnClientError);
}

Result<std::string> BootstrapServers(const KafkaOptions& o) {
  if (o.mock) return KafkaMockBootstrapServers();
  return o.bootstrap_servers;
}

Status SetConf(rd_kafka_conf_t* conf, const std::string& name, const std::string& value) {
  char err[512];
  if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
    return Status::InvalidArgument("Kafka: librdkafka refuses " + name + "=" + value + ": " + err);
  return Status::OK();
}

Result<ConfHandle> BaseConfig(const KafkaOptions& o, const std::string& bootstrap) {
  ConfHandle conf(rd_kafka_conf_new());
  Status s = SetConf(conf.get(), "bootstrap.servers", bootstrap);
  if (s.ok()) s = SetConf(conf.get(), "socket.timeout.ms", std::to_string(o.request_timeout_ms));
  // librdkafka's own log lines only for real problems, and through the
  // process's backend log (the service's JSON log) rather than stderr.
  if (s.ok()) s = SetConf(conf.get(), "log_level", "3");
  // The broker a line is about leads the text without the thread's name before it.
  if (s.ok()) s = SetConf(conf.get(), "log.thread.name", "false");
  RouteClientLog(conf.get());
  for (const auto& [name, value] : o.rdkafka) {
    if (!s.ok()) break;
    s = SetConf(conf.get(), name, value);
  }
  if (!s.ok()) return s;
  return conf;
}

Result<KafkaHandle> NewClient(rd_kafka_type_t type, ConfHandle conf) {
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(type, conf.get(), err, sizeof err);
  if (!rk) return Status::InvalidArgument(std::string("Kafka: cannot create the client: ") + err);
  conf.release();  // rd_kafka_new took it
  return KafkaHandle(rk);
}

}  // namespace idem::kafka
