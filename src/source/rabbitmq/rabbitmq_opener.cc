// The RabbitMQ adapter's entry in idem::connect's broker table (see
// connect/backend_openers.h): amqp:// and amqps:// URLs.
#include "connect/backend_openers.h"
#include "idem/rabbitmq.h"

namespace {

idem::Result<std::unique_ptr<idem::Broker>> OpenRabbitMqUrl(const std::string& url, const idem::BrokerOptions& options,
                                                            idem::Env* env) {
  if (idem::Status s = idem::connect::RefuseOrderedRetries(options, "RabbitMQ"); !s.ok()) return s;
  return idem::OpenRabbitMqBroker(url, options, env);
}

}  // namespace

extern "C" const idem::connect::BrokerOpener idem_open_rabbitmq_broker = &OpenRabbitMqUrl;
