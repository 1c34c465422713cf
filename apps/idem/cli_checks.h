// Validators for numeric options. Every count, size, delay and seed is checked
// when the command line is parsed, so a bad value is a usage error (exit 2) whose
// message names the option and the allowed range, before anything runs.
//
// CLI11 (2.1) converts with strtoull/strtoll in base 0: "-5" becomes a huge
// unsigned count and "010" is octal 8. These validators accept whole decimal
// numbers only and rewrite the text to its plain form, so what CLI11 converts
// afterwards is the number the user wrote. Attach the whole-number validators
// with ->transform(): ->check() would hand CLI11 the original text.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>

namespace idem::cli {

// A whole number from `lo` to `hi` (both included).
CLI::Validator IntegerIn(int64_t lo, int64_t hi);
// The same for unsigned 64-bit values (seeds), which may exceed INT64_MAX.
CLI::Validator UnsignedIn(uint64_t lo, uint64_t hi = std::numeric_limits<uint64_t>::max());
// A finite decimal number from `lo` to `hi`; each bound included unless said otherwise.
CLI::Validator NumberIn(double lo, double hi, bool lo_included = true, bool hi_included = true);

}  // namespace idem::cli
