// HTML for the console's pages. Everything a page shows that came from a
// message, a broker or a request goes through Escape (or ShowBytes for bodies
// and keys): a dead letter is hostile input, and its body must never become
// markup.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace idem::console {

// & < > " ' as character references.
std::string Escape(std::string_view text);

// `bytes` as readable text, then escaped: valid UTF-8 stays as it is; each byte
// that is not part of valid UTF-8, and each control character other than
// newline and tab, is shown as \xNN.
std::string ShowBytes(std::string_view bytes);
// ShowBytes of at most the first `limit` bytes, cut before a UTF-8 character
// that would not fit whole (so a cut never shows as \xNN).
std::string ShowPrefix(std::string_view bytes, size_t limit);

// A whole page: `title` is escaped; `body` is HTML the caller built (escaped).
// `signed_in` (escaped) adds the header with the audit link and log-out form,
// which carries `csrf`.
std::string Page(const std::string& title, const std::string& body, const std::string& signed_in = "",
                 const std::string& csrf = "");

// A time in ms since the epoch as "2026-12-01 14:03:07 UTC"; "-" for 0.
std::string FormatTime(int64_t ms);
// A duration as "3d 4h", "2h 5m", "7m 12s" or "9s".
std::string FormatAge(int64_t ms);

}  // namespace idem::console
