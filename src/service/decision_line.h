// The decision log's line, written straight into a reused string.
//
// `idem run` logs one line per message; building a JSON object per line (and
// a second one to add "ts", "level" and "event") cost more than a tenth of a
// run. These write the very same bytes directly: the keys in the sorted order
// JsonLog's objects print them in, each string escaped as nlohmann::json's
// dump with the `replace` error handler escapes it.
#pragma once

#include <string>
#include <string_view>

#include "idem/decision.h"

namespace idem::service {

// Appends `s` as a JSON string, quotes included: `"` and `\` escaped, control
// characters as \b \t \n \f \r or \u00XX, other bytes as they are — but each
// invalid UTF-8 sequence replaced by U+FFFD, as nlohmann::json does.
void AppendJsonString(std::string* out, std::string_view s);

// Appends the "decision" line of worker `worker` for `d`, written at time `ts`
// (JsonLog's "ts" text), newline included.
void AppendDecisionLine(std::string* out, std::string_view ts, const Decision& d, std::string_view worker);

}  // namespace idem::service
