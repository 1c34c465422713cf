// The librdkafka configuration idem's consumers, producers and readers start from.
#pragma once

#include <string>

#include "idem/kafka.h"
#include "source/kafka/rdkafka_handles.h"

namespace idem::kafka {

// The bootstrap servers `o` names (starting the mock cluster for kafka://mock).
Result<std::string> BootstrapServers(const KafkaOptions& o);

// A configuration with the bootstrap servers, the request timeout and every
// rdkafka.NAME pass-through of `o`. An invalid property names itself.
Result<ConfHandle> BaseConfig(const KafkaOptions& o, const std::string& bootstrap);

// Sends the client's log lines and error reports to the process's backend log
// (idem/backend_log.h) as "kafka_client_log" / "kafka_client_error" lines
// with the fields facility (log lines), code (errors), broker (the one the line
// is about, empty if none) and client (the handle's name).
void RouteClientLog(rd_kafka_conf_t* conf);

// Sets `name` = `value` on `conf`, or says which property librdkafka refused.
Status SetConf(rd_kafka_conf_t* conf, const std::string& name, const std::string& value);

// Creates a client of `type` from `conf` (which it takes).
Result<KafkaHandle> NewClient(rd_kafka_type_t type, ConfHandle conf);

}  // namespace idem::kafka
