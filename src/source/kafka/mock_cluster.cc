// kafka://mock: one librdkafka mock cluster per process, started on first use.
//
// The cluster lives as long as the client handle that created it, so that
// handle is kept for the whole process (never destroyed: destroying it at exit
// would race with clients still closing).
#include <mutex>

#include "source/kafka/client_config.h"  // rdkafka.h, which rdkafka_mock.h needs first

#include <librdkafka/rdkafka_mock.h>

namespace idem {

Result<std::string> KafkaMockBootstrapServers() {
  static std::mutex mu;
  static rd_kafka_t* owner = nullptr;
  static std::string bootstrap;
  std::lock_guard<std::mutex> lock(mu);
  if (owner) return bootstrap;
  kafka::ConfHandle conf(rd_kafka_conf_new());
  Status s = kafka::SetConf(conf.get(), "log_level", "3");
  if (s.ok()) s = kafka::SetConf(conf.get(), "log.thread.name", "false");
  if (!s.ok()) return s;
  kafka::RouteClientLog(conf.get());
  auto rk = kafka::NewClient(RD_KAFKA_PRODUCER, std::move(conf));
  if (!rk.ok()) return rk.status();
  rd_kafka_mock_cluster_t* cluster = rd_kafka_mock_cluster_new(rk->get(), 1);
  if (!cluster) return Status::Unavailable("Kafka: cannot start the in-process mock cluster (kafka://mock)");
  bootstrap = rd_kafka_mock_cluster_bootstraps(cluster);
  owner = rk->release();
  return bootstrap;
}

}  // namespace idem
