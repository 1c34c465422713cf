#include "store/set_shape.h"

#include <bit>

namespace idem {
namespace {

// Between 2^(w-1) and 2^w - 1 (w = bit width, n > 16) the shapes are the
// multiples of 2^(w-4): eight per doubling.
size_t Step(size_t n) { return size_t{1} << (std::bit_width(n) - 4); }

}  // namespace

size_t SetShapeAtLeast(size_t n) {
  if (n <= 16) return n;
  const size_t step = Step(n);
  return (n + step - 1) / step * step;
}

size_t SetShapeAtMost(size_t n) {
  if (n <= 16) return n;
  const size_t step = Step(n);
  return n / step * step;
}

}  // namespace idem
