// Sizing a copy before it is published. rabbitmq-c encodes a message's
// properties, its header table included, into one frame of the connection's
// frame_max (131,072 bytes as idem negotiates it); a table that does not fit
// fails the publish ("table too large for buffer") every time it is tried. The
// body travels in as many body frames as it needs, up to the broker's
// max_message_size.
//
// FitCopy makes a copy fit: idem's own headers (those the move stamps) always
// stay; the others (the producer's, x-death, earlier idem headers) are kept in
// their order while they fit, idem's earlier ones first, and the rest are
// dropped, named in an x-idem-headers-trimmed header. The body is never touched.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

#include "source/rabbitmq/outgoing.h"

namespace idem::rabbitmq {

inline constexpr const char* kHeadersTrimmedHeader = "x-idem-headers-trimmed";
// rabbitmq-c's default and idem's: the frame size asked for at login.
inline constexpr size_t kDefaultFrameMax = 131'072;

// Encoded size of the content-header frame that carries `o`'s properties
// (publish_limits.h counts the properties).
size_t HeaderFrameSize(Outgoing& o);

struct CopyFit {
  bool fits = false;            // false: not even the body with idem's headers fits; keep it in the store
  size_t dropped_headers = 0;   // the producer's headers left out
  size_t dropped_bytes = 0;     // their encoded size
  std::string why_not;          // when !fits: which limit, for the reason kept with it
};

// Trims `o`'s headers until its header frame fits `frame_max` and checks its
// body against `max_message_bytes`. `ours` names the headers that must stay.
CopyFit FitCopy(Outgoing& o, std::initializer_list<std::string_view> ours, size_t frame_max,
                size_t max_message_bytes);

// The headers a retry or dead-letter copy stamps (message_codec.h).
CopyFit FitMoveCopy(Outgoing& o, size_t frame_max, size_t max_message_bytes);

}  // namespace idem::rabbitmq
