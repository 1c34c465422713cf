#include "sim/hostile_payloads.h"

#include <cstdio>

namespace idem::sim {

std::string HostilePayload(Hostile kind, int n, const std::string& amount_field) {
  const std::string id = "\"payment_id\":\"H" + std::to_string(n) + "\"";
  const std::string amount = "\"" + amount_field + "\":";
  switch (kind) {
    case Hostile::kHugeAmount: return "{" + id + "," + amount + "1e400,\"user\":\"u1\"}";
    case Hostile::kNegativeHugeAmount: return "{" + id + "," + amount + "-1e400,\"user\":\"u1\"}";
    case Hostile::kHugeId:
      return "{\"payment_id\":1e" + std::to_string(400 + n) + "," + amount + "5,\"user\":\"u1\"}";
    case Hostile::kDeepNesting:
      return "{" + id + "," + amount + "5,\"x\":" + std::string(1500, '[') + std::string(1500, ']') + "}";
    case Hostile::kInvalidUtf8:
    case Hostile::kCount: break;
  }
  return "{\"payment_id\":\"H" + std::to_string(n) + "\xff\"," + amount + "5,\"user\":\"u1\"}";
}

std::string BigIntegerId(int n, int which) {
  // 20 fixed digits, then 5 that hold 2n or 2n + 1: all such ids are one double.
  char tail[8];
  std::snprintf(tail, sizeof tail, "%05d", (2 * n + which) % 100000);
  return std::string("12345678901234567890") + tail;
}

}  // namespace idem::sim
