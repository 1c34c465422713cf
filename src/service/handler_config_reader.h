// Reads [[state_machine]] and [[consumer.handler]] tables (handler_config.h)
// from the configuration, checking every table and column name and every
// state machine when the file is read, so a bad one is reported with its
// position before anything starts. Throws ConfigError (toml_reader.h).
#pragma once

#include <vector>

#include "service/handler_config.h"
#include "service/toml_reader.h"

namespace idem::service {

StateMachineConfig ReadStateMachine(TableReader t);

// `machines`: the file's state machines, which transition steps name.
DeclaredHandler ReadDeclaredHandler(TableReader t, const std::vector<StateMachineConfig>& machines);

}  // namespace idem::service
