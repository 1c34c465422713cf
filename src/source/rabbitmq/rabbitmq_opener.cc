// The RabbitMQ adapter's entry in idem::connect's broker table (see
// connect/backend_openers.h): amqp:// and amqps:// URLs.
#include "connect/backend_openers.h"
#include "idem/rabbitmq.h"

extern "C" const idem::connect::BrokerOpener idem_open_rabbitmq_broker = &idem::OpenRabbitMqBroker;
