// OpenBroker: picks the adapter from the URL scheme.
#include "idem/broker.h"
#include "idem/embedded_queue.h"

namespace idem {

Result<std::unique_ptr<Broker>> OpenBroker(const std::string& url, const BrokerOptions& options, Env* env) {
  std::string path = url;
  for (const char* prefix : {"queue://", "queue:"}) {
    if (url.rfind(prefix, 0) == 0) {
      path = url.substr(std::string(prefix).size());
      break;
    }
  }
  if (path.find("://") != std::string::npos)
    return Status::InvalidArgument("unsupported broker URL '" + url +
                                   "': use a queue file path (this build has no other broker adapters)");
  if (path.empty()) return Status::InvalidArgument("broker URL '" + url + "' names no queue file");
  EmbeddedQueueOptions eo;
  eo.topics = options.topics;
  eo.visibility_timeout_ms = options.visibility_timeout_ms;
  auto q = EmbeddedQueue::Open(path, eo, env);
  if (!q.ok()) return q.status();
  return std::unique_ptr<Broker>(std::move(*q));
}

}  // namespace idem
