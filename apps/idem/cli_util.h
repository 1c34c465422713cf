// Small helpers shared by the sub-commands.
#pragma once

#include <memory>
#include <string>

#include "commands.h"
#include "idem/broker.h"
#include "idem/env.h"

namespace idem::cli {

// What a command may do to the queue it names.
enum class QueueAccess {
  kCreate,    // publish: create the queue file / declare the queues if missing
  kExisting,  // stats and the dead-letter console: the queue must exist; nothing is created
};

// Opens the broker at `url` (a queue file path, or a broker URL) or throws a
// CliError that says what to do.
std::unique_ptr<Broker> OpenQueueOrDie(const std::string& url, QueueAccess access);

// The URL with any password replaced by "***", for messages and hints (no
// secrets in logs): "amqp://idem:***@127.0.0.1:5673/". Paths come back unchanged.
std::string RedactUrl(const std::string& url);

// "2026-11-29T08:43:09.123Z" (UTC); "-" for 0.
std::string FormatTimeMs(int64_t ms);

}  // namespace idem::cli
