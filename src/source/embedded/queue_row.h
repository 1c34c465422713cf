// Between the embedded queue's rows and Message: the headers column (a JSON
// object of strings) and the columns a Poll or a dead-letter read returns.
// Pure functions, so the fuzz tests can run them on arbitrary rows.
#pragma once

#include <map>
#include <string>

#include "idem/message.h"
#include "idem/sql.h"

namespace idem::embedded {

// The columns MessageFromRow reads, in its order.
inline constexpr const char* kMessageColumns =
    "id, msg_id, topic, key, headers, payload, deliveries, attempt, published_at_ms";

std::string HeadersToJson(const std::map<std::string, std::string>& headers);
// Anything but a JSON object gives no headers; a value that is not a string
// comes back as its JSON text.
std::map<std::string, std::string> HeadersFromJson(const std::string& text);

// REQUIRES: `row` holds the kMessageColumns.
Message MessageFromRow(const Row& row);

}  // namespace idem::embedded
