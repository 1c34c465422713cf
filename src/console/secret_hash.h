// Operator secrets as the configuration stores them: PBKDF2-HMAC-SHA256 with a
// random salt, "pbkdf2-sha256$ITERATIONS$SALT_HEX$HASH_HEX". Slow on purpose,
// so a leaked configuration file does not give the secrets away cheaply.
#pragma once

#include <string>

#include "idem/status.h"

namespace idem::console {

constexpr int kDefaultHashIterations = 600'000;  // OWASP's figure for PBKDF2-HMAC-SHA256
constexpr int kMinHashIterations = 100'000;       // fewer is refused when the configuration is read
constexpr size_t kMinSecretBytes = 12;            // OWASP ASVS's minimum length for a memorised secret

// Empty when `secret` may be used; else why not: blank (empty or only
// whitespace) or shorter than kMinSecretBytes. Checked when a secret is hashed
// and whenever one is presented (a login, IDEM_OPERATOR_SECRET), so a hash made
// of a blank or short secret some other way never lets anyone in.
std::string CheckSecret(const std::string& secret);

// Hashes `secret` with a fresh salt from the operating system's CSPRNG;
// InvalidArgument when CheckSecret refuses it.
Result<std::string> HashSecret(const std::string& secret, int iterations = kDefaultHashIterations);

// Empty when `encoded` is a hash this module can check; else what is wrong with it.
std::string CheckHashFormat(const std::string& encoded);

// True when `secret` hashes to `encoded` (compared in constant time). False at
// once, without the slow hash, when CheckSecret refuses `secret`: the policy is
// public, so this tells an attacker nothing and spares the CPU.
bool VerifySecret(const std::string& secret, const std::string& encoded);

// `n` bytes from the operating system's CSPRNG, as 2n hex digits (session ids,
// CSRF tokens). Not Env::Random64: these must be unguessable, not replayable.
std::string RandomHex(size_t n);

}  // namespace idem::console
