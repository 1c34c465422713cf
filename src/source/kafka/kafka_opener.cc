// The Kafka adapter's entry in idem::connect's broker table (see
// connect/backend_openers.h): kafka:// URLs.
#include "connect/backend_openers.h"
#include "idem/kafka.h"

extern "C" const idem::connect::BrokerOpener idem_open_kafka_broker = &idem::OpenKafkaBroker;
