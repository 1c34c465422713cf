// Small helpers the fuzz targets share: a check that stops the run with a
// message, and text transforms that keep a JSON document's meaning.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace idem::fuzz {

// An invariant: when it does not hold, libFuzzer keeps the input as a crash.
inline void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

inline std::string_view Trim(std::string_view s) {
  const char* kSpace = " \t\r\n";
  const size_t b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kSpace) - b + 1);
}

// `json` with JSON whitespace after every structural character outside strings:
// the same document to any JSON reader.
inline std::string WithWhitespace(std::string_view json) {
  std::string out;
  bool in_string = false, escaped = false;
  for (char c : json) {
    out += c;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[' || c == ',' || c == ':') {
      out += "\n\t ";
    }
  }
  return out;
}

}  // namespace idem::fuzz
