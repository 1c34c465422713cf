// How the bench report prints its figures: thousands separated, fixed
// decimals, "—" for a figure a failed run left out.
#pragma once

#include <cstdint>
#include <string>

namespace idem::bench {

std::string Int(int64_t v);                 // 1,234,567
std::string Fixed(double v, int decimals);  // Fixed(0.8512, 2) == "0.85"
std::string Rate(double v);                 // msg/s as a whole number; "—" for 0
std::string MiB(int64_t kb);                // "10.7 MiB"

}  // namespace idem::bench
