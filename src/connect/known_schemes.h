// The wiring tables of this build: every store, broker and fast-filter scheme
// idem knows, each with the opener of its backend when the build has it.
//
// Backends register here explicitly, one entry each, under the IDEM_WITH_X
// define their CMake option sets on this library (not through static
// initialisers, which a static link drops when nothing else refers to them).
// This library is the only one that links every backend; no backend links another.
#pragma once

#include <memory>
#include <string>

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

}  // namespace idem::connect
