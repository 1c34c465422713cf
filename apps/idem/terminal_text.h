// Bytes a producer chose (keys, bodies, reasons, topics, header values), made
// safe to print on a terminal: what the text output of every command that
// shows them goes through, so an escape sequence cannot drive the operator's
// terminal, a newline cannot forge a line, and a NUL cannot cut a value short.
//
// The escaped form is visible and unambiguous:
//   \\ for a backslash, \0 for NUL, \n \r \t, \xNN for any other C0 control
//   byte, DEL (0x7f) and every byte that is not part of valid UTF-8 (an
//   overlong form, a surrogate, a stray continuation byte), and \u{NNNN} for
//   the C1 controls (U+0080–U+009F, which some terminals read as ESC [) and
//   the invisible direction overrides and line separators (U+200E, U+200F,
//   U+2028, U+2029, U+202A–U+202E, U+2066–U+2069).
// Every other character, non-ASCII text included, is printed as it is.
// `--json` output does not use this: it keeps the bytes exactly (json_out.h).
#pragma once

#include <string>
#include <string_view>

namespace idem::cli {

std::string TerminalSafe(std::string_view bytes);

// For an error message printed to stderr: the same escapes, except that the
// line breaks and backslashes the message itself is written with stay as
// they are.
std::string TerminalSafeLines(std::string_view text);

}  // namespace idem::cli
