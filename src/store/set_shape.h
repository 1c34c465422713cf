// Statements over a set of rows (`IN (?, ?, ...)`, `CASE k WHEN ? THEN ? ...`,
// multi-row VALUES) are prepared and cached by their text for the
// connection's life, so a statement for every set size that occurs would be
// up to a batch's worth of cached statements per kind: memory that grows for
// the first million messages and parse time for each new size. Sets are
// therefore brought to a few sizes, the shapes: every size up to 16, then 8
// sizes per doubling (18, 20, ... 32, 36, ... 64, 72, ...), so a set padded to
// its shape carries at most an eighth more rows.
//
// Padding repeats the set's last element. That changes nothing where a
// repeated key is harmless: an IN list, a CASE (its first WHEN wins, and the
// repeat has the same value), and an INSERT that skips a conflicting row
// (ON CONFLICT DO NOTHING, INSERT IGNORE), as long as the caller counts what
// the padding added. Where a repeat would fail (MySQL's plain multi-row
// INSERT) the set is cut into shapes instead.
#pragma once

#include <cstddef>
#include <vector>

namespace idem {

// The smallest shape >= n (n for n <= 16).
size_t SetShapeAtLeast(size_t n);

// The largest shape <= n (n >= 1).
size_t SetShapeAtMost(size_t n);

// Appends copies of the last element until v holds SetShapeAtLeast(v.size()).
template <class T>
void PadToSetShape(std::vector<T>& v) {
  if (v.empty()) return;
  const size_t shape = SetShapeAtLeast(v.size());
  v.reserve(shape);
  while (v.size() < shape) v.push_back(T(v.back()));
}

}  // namespace idem
