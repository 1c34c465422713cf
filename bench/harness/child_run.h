// Runs a function in a forked child process and brings its JSON answer back
// through a pipe. Each bench configuration runs this way: fresh memory, its
// own peak RSS, and a crash in one run costs that run only.
// REQUIRES: the calling process has no other threads (fork copies only the caller).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "idem/status.h"

namespace idem::bench {

Result<nlohmann::json> RunInChild(const std::function<nlohmann::json()>& work);

}  // namespace idem::bench
