// The embedded queue's row decoding on arbitrary column values.
//
// The input is the headers column as stored (any text: the queue file is an
// ordinary SQLite file anyone can write); its bytes also fill the other columns
// with every type SQLite can hand back. Beyond "no crash":
// - headers read back, written and read again come back the same;
// - the message carries the text and blob columns byte-exact.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_text.h"
#include "source/embedded/queue_row.h"

namespace {

using idem::Blob;
using idem::Row;
using idem::Value;
using idem::fuzz::Check;

// A column value of the type `selector` picks, made from `bytes`.
Value ColumnValue(uint8_t selector, const std::string& bytes) {
  int64_t i = 0;
  std::memcpy(&i, bytes.data(), std::min(bytes.size(), sizeof i));
  switch (selector % 5) {
    case 0: return i;
    case 1: return bytes;
    case 2: return Blob{bytes};
    case 3: return nullptr;
    default: {
      // Any double, NaN and infinities included: AsInt once converted a REAL
      // outside int64's range with undefined behaviour (found by this target).
      double d = 0;
      std::memcpy(&d, bytes.data(), std::min(bytes.size(), sizeof d));
      return d;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto headers = idem::embedded::HeadersFromJson(text);
  Check(idem::embedded::HeadersFromJson(idem::embedded::HeadersToJson(headers)) == headers,
        "headers change when written back to the queue");

  const uint8_t selector = size ? data[0] : 0;
  const Row row = {int64_t{1}, text, text, Blob{text}, text, Blob{text}, ColumnValue(selector, text),
                   ColumnValue(selector / 5, text), ColumnValue(selector / 25, text)};
  const idem::Message m = idem::embedded::MessageFromRow(row);
  Check(m.id == text && m.topic == text && m.key == text && m.payload == text, "a column lost bytes");
  Check(m.headers == headers, "the headers column decodes differently in a row");
  return 0;
}
