#include "console/secret_hash.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <vector>

namespace idem::console {
namespace {

constexpr size_t kSaltBytes = 16;
constexpr size_t kHashBytes = 32;
constexpr const char* kScheme = "pbkdf2-sha256";

std::string Hex(const unsigned char* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

bool Unhex(const std::string& hex, std::vector<unsigned char>* out) {
  if (hex.size() % 2 != 0 || hex.empty()) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<unsigned char>(hi * 16 + lo));
  }
  return true;
}

struct Parsed {
  int iterations = 0;
  std::vector<unsigned char> salt, hash;
};

// Empty on success, else what is wrong.
std::string Parse(const std::string& encoded, Parsed* p) {
  const std::string prefix = std::string(kScheme) + "$";
  if (encoded.rfind(prefix, 0) != 0) return "it does not start with \"" + prefix + "\"";
  const size_t a = prefix.size(), b = encoded.find('$', a), c = b == std::string::npos ? b : encoded.find('$', b + 1);
  if (c == std::string::npos) return "it needs four parts separated by '$'";
  try {
    p->iterations = std::stoi(encoded.substr(a, b - a));
  } catch (const std::exception&) {
    return "the iteration count is not a number";
  }
  if (p->iterations < kMinHashIterations)
    return "it uses " + std::to_string(p->iterations) + " iterations, fewer than " +
           std::to_string(kMinHashIterations);
  if (!Unhex(encoded.substr(b + 1, c - b - 1), &p->salt) || !Unhex(encoded.substr(c + 1), &p->hash) ||
      p->hash.size() != kHashBytes)
    return "the salt or the hash is not lower-case hex of the right length";
  return {};
}

bool Derive(const std::string& secret, const std::vector<unsigned char>& salt, int iterations, unsigned char* out) {
  return PKCS5_PBKDF2_HMAC(secret.data(), static_cast<int>(secret.size()), salt.data(), static_cast<int>(salt.size()),
                           iterations, EVP_sha256(), static_cast<int>(kHashBytes), out) == 1;
}

}  // namespace

std::string CheckSecret(const std::string& secret) {
  const bool blank =
      std::all_of(secret.begin(), secret.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  if (blank) return "the secret is blank (empty or only whitespace)";
  if (secret.size() < kMinSecretBytes)
    return "the secret is " + std::to_string(secret.size()) + " bytes long, shorter than the " +
           std::to_string(kMinSecretBytes) + " a secret needs";
  return {};
}

Result<std::string> HashSecret(const std::string& secret, int iterations) {
  if (std::string why = CheckSecret(secret); !why.empty())
    return Status::InvalidArgument(why + ": choose one of at least " + std::to_string(kMinSecretBytes) +
                                   " bytes, not only spaces (a passphrase of a few words will do)");
  std::vector<unsigned char> salt(kSaltBytes);
  if (RAND_bytes(salt.data(), static_cast<int>(salt.size())) != 1)
    return Status::Unavailable("the system's random number generator failed; try again");
  unsigned char hash[kHashBytes];
  if (!Derive(secret, salt, iterations, hash)) return Status::Unavailable("PBKDF2 failed in OpenSSL");
  return std::string(kScheme) + "$" + std::to_string(iterations) + "$" + Hex(salt.data(), salt.size()) + "$" +
         Hex(hash, kHashBytes);
}

std::string CheckHashFormat(const std::string& encoded) {
  Parsed p;
  return Parse(encoded, &p);
}

bool VerifySecret(const std::string& secret, const std::string& encoded) {
  if (!CheckSecret(secret).empty()) return false;
  Parsed p;
  if (!Parse(encoded, &p).empty()) return false;
  unsigned char hash[kHashBytes];
  if (!Derive(secret, p.salt, p.iterations, hash)) return false;
  return CRYPTO_memcmp(hash, p.hash.data(), kHashBytes) == 0;
}

std::string RandomHex(size_t n) {
  std::vector<unsigned char> bytes(n);
  // A session id that could be guessed would be worse than no login: stop.
  if (RAND_bytes(bytes.data(), static_cast<int>(n)) != 1)
    throw std::runtime_error("the system's random number generator failed");
  return Hex(bytes.data(), n);
}

}  // namespace idem::console
