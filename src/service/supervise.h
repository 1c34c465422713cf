// The signal side of `idem run`: SIGTERM and SIGINT are never handled
// asynchronously; the supervising thread waits for them with sigtimedwait
// while the workers run, so no signal handler touches the service.
//
//   first signal          Service::Stop; exit 0 once every worker has settled
//                         its batch, within [service] shutdown_timeout_ms
//   second signal, or     Service::Abandon: held deliveries go back to the
//   that bound passed     broker; exit 1 within abandon_timeout_ms, even if a
//                         handler is stuck (the broker then redelivers after
//                         the visibility timeout, or at once when the
//                         connection closes)
#pragma once

#include "service/config.h"
#include "service/json_log.h"
#include "service/service.h"

namespace idem::service {

// Blocks SIGTERM and SIGINT in the calling thread. Call before Service::Start:
// the worker threads inherit the mask, so the signals reach only Supervise.
void BlockStopSignals();

// Whether SIGTERM or SIGINT is pending (blocked, not yet taken): the start-up
// wait asks this between attempts. The signal stays pending.
bool StopSignalPending();

// Waits for the workers to end and for signals; returns the exit code.
int Supervise(Service& service, const ServiceConfig& config, Env* env, JsonLog* log);

}  // namespace idem::service
