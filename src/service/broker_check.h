// The broker check of a start: each consumer group's broker, opened with the
// options its workers use, answers a question about its queues (their depths),
// so an unreachable broker or a queue or topic the group cannot use is found
// before any worker polls. Nothing is consumed, acknowledged or published; a
// missing queue is declared as the first worker would declare it.
#pragma once

#include "idem/env.h"
#include "service/config.h"
#include "service/handler_registry.h"

namespace idem::service {

// OK when every group's broker answers. Otherwise the broker's error, naming
// the group: InvalidArgument stays InvalidArgument (the URL or the topics are
// wrong), anything else is Unavailable.
Status CheckBrokers(const ServiceConfig& config, const HandlerRegistry& registry, Env* env);

}  // namespace idem::service
