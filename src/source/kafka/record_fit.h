// Sizing a move's record before it is produced. librdkafka refuses, for good
// (MSG_SIZE_TOO_LARGE), a record whose key, value and headers exceed the
// producer's message.max.bytes (1,000,000 bytes unless the URL sets
// rdkafka.message.max.bytes=); a move tried again would be refused again.
//
// FitRecord keeps idem's bookkeeping headers, then the producer's in their
// order while they fit; the rest are dropped, named in an idem-headers-trimmed
// header. Key and value are never touched: if they do not fit with idem's
// headers, the record cannot go to Kafka at all.
#pragma once

#include <cstddef>
#include <string>

#include "source/kafka/confirmed_producer.h"

namespace idem::kafka {

inline constexpr char kHeadersTrimmedHeader[] = "idem-headers-trimmed";

// The most librdkafka can count for `r` against message.max.bytes (its
// record overhead included).
size_t RecordWireSize(const OutRecord& r);

struct RecordFit {
  bool fits = false;
  size_t dropped_headers = 0;
  size_t dropped_bytes = 0;
  std::string why_not;  // when !fits: which limit
};

RecordFit FitRecord(OutRecord& r, size_t max_bytes);

}  // namespace idem::kafka
