// Amounts: the ledger keeps integer minor units (19900 for 199.00); people and
// bank statements write decimals. Conversions are exact — no floating point.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "idem/status.h"

namespace idem::reconcile {

// "199.00", "-199.5", "+3", "199" with `decimals` = 2 → 19900, -19950, 300,
// 19900. More fraction digits than `decimals`, anything but digits, one sign and
// one '.', or a value beyond int64 is InvalidArgument.
Result<int64_t> ParseAmount(std::string_view text, int decimals);

// 19900 → "199.00", -5 → "-0.05" (decimals = 2).
std::string FormatAmount(int64_t minor, int decimals);

}  // namespace idem::reconcile
