// Sessions: the console's logins. A session id and its CSRF token are 32
// random bytes from the OS CSPRNG; a session expires `ttl_ms` after the login
// by the Env clock (so tests move time instead of waiting).
// Thread safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "console/identity.h"
#include "idem/env.h"

namespace idem::console {

struct Session {
  std::string id;    // the cookie value
  std::string csrf;  // the token every state-changing form must carry
  Identity who;
  int64_t expires_ms = 0;
};

class Sessions {
 public:
  Sessions(Env* env, int64_t ttl_ms) : env_(env), ttl_ms_(ttl_ms) {}

  Session Create(const Identity& who);
  // The live session `id`, or nullopt (unknown, logged out or expired).
  std::optional<Session> Find(const std::string& id);
  void End(const std::string& id);
  int64_t ttl_ms() const { return ttl_ms_; }

 private:
  Env* env_;
  int64_t ttl_ms_;
  std::mutex mu_;
  std::map<std::string, Session> live_;
};

}  // namespace idem::console
