#include "source/kafka/client_config.h"

#include <string>

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

// Runs on librdkafka's own threads; the backend log hook is thread-safe.
void OnClientLog(const rd_kafka_t* rk, int level, const char* facility, const char* line) {
  BackendLog(LevelOf(level), "librdkafka", "kafka_client_log",
             std::string(rd_kafka_name(rk)) + " " + facility + ": " + line);
}

}  // namespace

void RouteClientLog(rd_kafka_conf_t* conf) { rd_kafka_conf_set_log_cb(conf, &OnClientLog); }

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
