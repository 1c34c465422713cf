// LoginThrottle: failed console logins slow down whoever makes them, counted
// per operator name and per client address. The first few failures cost
// nothing; after them each further attempt must wait, and the wait doubles
// with every failure (1 s, 2 s, 4 s, … up to 15 min). An attempt that comes
// before its wait is over is refused without checking the secret (the console
// answers 429 with Retry-After), so it costs no 600,000-iteration hash either.
// A successful login clears the counts of its operator and its address.
//
// An attempt counts as failed from the moment it is admitted until Succeeded
// says otherwise (Failed then restarts its wait): 40 guesses sent at once get no more hashes than 40 sent one
// after the other.
//
// Memory: operator names are counted only for configured operators (a name
// that is none cannot be locked out, and counting every typed name would let
// anyone fill the table); addresses are kept up to `max_addresses`, dropping
// those quiet for `forget_after_ms`, then the one quiet the longest.
//
// Time comes from Env::NowMs (tests move a manual clock).
// Thread safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "idem/env.h"

namespace idem::console {

struct ThrottlePolicy {
  int free_failures = 3;                      // failures in a row before any wait
  int64_t first_wait_ms = 1'000;              // the wait after the first failure beyond those; then doubled
  int64_t max_wait_ms = 15 * 60'000;          // the longest wait
  int64_t forget_after_ms = 24 * 3'600'000;  // failures older than this are forgotten
  size_t max_addresses = 10'000;              // client addresses remembered at most
};

class LoginThrottle {
 public:
  explicit LoginThrottle(Env* env, ThrottlePolicy policy = {}) : env_(env), policy_(policy) {}

  // Called before the secret is checked. 0: the attempt may go ahead, and it
  // counts as a failure of `operator_name` (empty: the name is no operator)
  // and of `address` until Succeeded. Otherwise the ms left to wait; nothing
  // is counted.
  int64_t Admit(const std::string& operator_name, const std::string& address);
  // The secret was wrong: the wait starts now, when the answer goes out, not
  // when the attempt was admitted (checking a secret takes a while).
  void Failed(const std::string& operator_name, const std::string& address);
  // The secret was right: forgets the failures of both.
  void Succeeded(const std::string& operator_name, const std::string& address);

  // How many client addresses are remembered (bounded by max_addresses).
  size_t addresses();

 private:
  struct Failures {
    int count = 0;
    int64_t last_ms = 0;
  };
  // The ms `f` must still wait at `now`.
  int64_t WaitMs(const Failures& f, int64_t now) const;
  // The failures of `address`, making room for it when it is new. REQUIRES: mu_ held.
  Failures& AddressSlot(const std::string& address, int64_t now);
  void Count(Failures& f, int64_t now) const;

  Env* env_;
  ThrottlePolicy policy_;
  std::mutex mu_;
  std::map<std::string, Failures> operators_;
  std::map<std::string, Failures> addresses_;
};

}  // namespace idem::console
