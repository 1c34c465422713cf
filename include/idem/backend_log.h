// BackendLog: where a backend adapter's own diagnostics go — a Kafka consumer
// that could not commit at a revocation, librdkafka's log lines — so that a
// service built on idem logs them through its one log rather than having
// plain-text lines appear on stderr beside its JSON lines.
//
// The hook is process-wide because the lines come from client libraries'
// own threads and from handles that any part of the program opens (workers,
// readiness probes, the console); a backend library only calls BackendLog and
// depends on nothing that receives it.
//
// Thread safety: BackendLog may be called from any thread; the hook must
// accept that. SetBackendLogHook before opening backends, and clear it (an
// empty hook) before what it writes to goes away.
#pragma once

#include <functional>
#include <initializer_list>
#include <span>
#include <string_view>

namespace idem {

enum class BackendLogLevel { kDebug, kInfo, kWarn, kError };

// A named value of a line that a collector filters on (librdkafka's
// "facility", the "broker" a line is about, a member's "instance"), beside
// the free text.
struct BackendLogField {
  std::string_view name;
  std::string_view value;
};

// `source`: which adapter ("kafka", "librdkafka"); `event`: a short snake_case
// name of what happened; `message`: the text, never a payload; `fields`: only
// valid during the call.
using BackendLogHook = std::function<void(BackendLogLevel level, std::string_view source, std::string_view event,
                                          std::string_view message, std::span<const BackendLogField> fields)>;

// Installs `hook` (empty: the default, one plain line on stderr).
void SetBackendLogHook(BackendLogHook hook);

// Writes one line through the installed hook.
void BackendLog(BackendLogLevel level, std::string_view source, std::string_view event, std::string_view message,
                std::initializer_list<BackendLogField> fields = {});

}  // namespace idem
