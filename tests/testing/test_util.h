// Helpers shared by tests: a temporary folder and a business
// handler whose effects carry no unique constraint of their own — so only the
// guard can stop a duplicate, and a test that counts effects can fail.
#pragma once

#include <cstdint>
#include <string>

#include "idem/env.h"
#include "idem/handler.h"
#include "idem/store.h"

namespace idem::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Creates `effects(key, msg_id, amount)` (no unique constraint: a doubled
// effect is a second row) and `accounts` u1 and u2 at 1,000,000, on every
// store; on MySQL, where `key` is reserved, the key column is `k`.
void CreateEffectTables(Store& store);
// The column of `effects` that holds the idempotency key on `dialect`.
std::string EffectKeyColumn(const SqlDialect& dialect);
// Handler for topic "pay": payload {"payment_id": "...", "amount": N, "user": "u1"}.
// Inserts one effects row and deducts amount from the user's balance with a
// read-modify-write (deliberately naive: the guard is what keeps it correct).
HandlerSpec PayHandler(const std::string& topic = "pay");
int64_t CountEffects(Store& store, const std::string& key_like = "%");
int64_t Balance(Store& store, const std::string& owner);
int64_t QueryInt(Store& store, const std::string& sql);
// Every row of `sql`, one line per row, columns joined by '|': two stores' tables compare as text.
std::string DumpRows(Store& store, const std::string& sql);

}  // namespace idem::testing

namespace idem::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out;
  std::string err;
};

// Runs `argv` (argv[0] is the program path) with `stdin_text` on its standard
// input, waits for it and captures both outputs.
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& stdin_text = "");

}  // namespace idem::testing
