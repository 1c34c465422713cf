// The declared schema check: before a worker takes its first message, every
// table and column the declarative steps of a configuration name
// ([[consumer.handler.step]] and the [[state_machine]]s they move) exists in
// the store, with a type the step can use, and every sql step's statement
// compiles there. Without it a typo'd table would park every message as a
// permanent failure; with it the deploy refuses to start.
//
// Runs `idem run` (after the handler sets' tables and [store] setup_sql) and
// `idem run --check FILE --connect`. It reads the engine's catalogue through
// StoreTx::DescribeTable and compiles sql steps with EXPLAIN (parameters bound
// as their kinds, NULL for payload fields), in transactions that it rolls
// back: it writes nothing.
#pragma once

#include "idem/store.h"
#include "service/config.h"

namespace idem::service {

// OK when every step fits the store. InvalidArgument otherwise, one line per
// problem, each starting with the step's FILE:LINE:COLUMN and saying what to
// change. Another failure (the store cannot be read) keeps its own code.
Status CheckDeclaredSchema(const ServiceConfig& config, Store& store);

}  // namespace idem::service
