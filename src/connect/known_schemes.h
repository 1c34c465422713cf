// The wiring tables of this build: every store, broker and fast-filter scheme
// idem knows, each with the opener of its backend when the build has it.
//
// Every scheme has its entry here; an optional backend's opener is the symbol
// its own library defines (backend_openers.h), null when the program does not
// link that library. No backend links another.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "connect/scheme_table.h"
#include "idem/broker.h"
#include "idem/env.h"
#include "idem/fast_filter.h"
#include "idem/store.h"
#include "idem/store_access.h"

namespace idem::connect {

using StoreOpener = Result<std::unique_ptr<Store>> (*)(const std::string& url, Env* env, StoreAccess access);
using BrokerOpener = Result<std::unique_ptr<Broker>> (*)(const std::string& url, const BrokerOptions& options,
                                                          Env* env);
using FastFilterOpener = Result<std::unique_ptr<FastFilter>> (*)(const std::string& url,
                                                                  const FastFilterUrlOptions& options, Env* env);

const SchemeTable<StoreOpener>& StoreSchemes();
const SchemeTable<BrokerOpener>& BrokerSchemes();
const SchemeTable<FastFilterOpener>& FastFilterSchemes();

// What `idem run --check` and the command-line flags ask of a URL before
// anything is opened: a scheme of the table (built in or not) and, for the
// SQLite file and the embedded queue file, a form their parser takes. An
// InvalidArgument names the known schemes and the nearest one.
Status CheckStoreUrl(const std::string& url);
Status CheckBrokerUrl(const std::string& url);
Status CheckFastFilterUrl(const std::string& url);

// The components whose backends this program links, in table order, each
// once: "sqlite" (the SQLite store and the embedded queue) first, then
// "postgres", "mysql", "rabbitmq", "kafka", "redis" as linked.
std::vector<std::string> LinkedComponents();

}  // namespace idem::connect
