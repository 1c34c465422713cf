// Small helpers shared by the sub-commands.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

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

// The store and the broker have one flag name on every command: --store URL
// and --broker URL. The names some commands used before (--store-url,
// --queue) still work for a release, hidden from --help. A value is checked as
// the command line is parsed: empty, or a scheme idem does not know
// ("sqlit:x.db"), is a usage error (exit 2) that names the flag as typed, the
// known schemes and the nearest one. A bare path (no ':' before its first '/')
// is the SQLite file / the embedded queue file. The option returned is the
// canonical one: ->required() and ->excludes() on it cover the alias too.
CLI::Option* AddStoreOption(CLI::App* cmd, std::string* url, const std::string& help);
CLI::Option* AddStoreOption(CLI::App* cmd, std::vector<std::string>* urls, const std::string& help);
CLI::Option* AddBrokerOption(CLI::App* cmd, std::string* url, const std::string& help);

// Checks a fast-filter URL (--redis-url) the same way.
CLI::Validator FastFilterUrl();

// Refuses an empty or blank value ("--topic ''"): a usage error, not a line
// parked or a message sent with no topic.
CLI::Validator NotBlank();

// The URL with any password replaced by "***", for messages and hints (no
// secrets in logs): "amqp://idem:***@127.0.0.1:5673/". Paths come back unchanged.
std::string RedactUrl(const std::string& url);

// "2026-11-29T08:43:09.123Z" (UTC); "-" for 0.
std::string FormatTimeMs(int64_t ms);

}  // namespace idem::cli
