#include "core/key_length.h"

#include "core/bounded_text.h"
#include "idem/key.h"

namespace idem {

size_t DerivedKeyBytes(std::string_view prefix, std::string_view key) {
  size_t n = prefix.size() + 1 + key.size();
  for (char c : key)
    if (c == ':' || c == '\\') ++n;
  return n;
}

size_t MaxBusinessKeyBytes(std::string_view prefix) {
  return prefix.size() + 1 >= kMaxKeyBytes ? 0 : kMaxKeyBytes - prefix.size() - 1;
}

std::string KeyTooLongReason(std::string_view prefix, size_t total_bytes) {
  return "the idempotency key would be " + std::to_string(total_bytes) + " bytes with the prefix " +
         BoundedQuote(prefix) + " and its ':', over the limit of " + std::to_string(kMaxKeyBytes) +
         ": the business key may take at most " + std::to_string(MaxBusinessKeyBytes(prefix)) +
         " bytes under this prefix (':' and '\\' count twice); shorten the key fields";
}

std::string CheckDerivedKeyLength(std::string_view prefix, std::string_view key) {
  const size_t total = DerivedKeyBytes(prefix, key);
  return total > kMaxKeyBytes ? KeyTooLongReason(prefix, total) : std::string();
}

}  // namespace idem
