#include "source/kafka/client_config.h"

namespace idem::kafka {

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
  // librdkafka's own log lines go to stderr only for real problems.
  if (s.ok()) s = SetConf(conf.get(), "log_level", "3");
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
