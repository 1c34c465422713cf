// A payments handler whose SQL runs on every store (PostgreSQL, SQLite), for
// tests that count effects in the database whichever store guards them.
#pragma once

#include <cstdint>
#include <string>

#include <vector>

#include "idem/handler.h"
#include "idem/message.h"
#include "idem/store.h"

namespace idem::testing {

// The pay handler of test_util.h in SQL that PostgreSQL and SQLite both run:
// `effects(key, msg_id, amount)` has no unique constraint, so only the guard
// can stop a duplicate; `accounts(owner, balance)` is debited by one UPDATE.
void CreatePortableEffectTables(Store& store);
HandlerSpec PortablePayHandler(const std::string& topic = "pay");
int64_t CountPortableEffects(Store& store);
int64_t PortableBalance(Store& store, const std::string& owner);

// Messages for PortablePayHandler: payments P0…P<n-1> (amount i + 1), each in
// `copies` copies under different message ids, ordered chunk by chunk — for
// each `chunk` payments, one round per copy — so a payment's copies reach
// different consumers' batches at about the same time. Adds the amounts of the
// distinct payments to *total.
std::vector<Message> PaymentCopies(int payments, int copies, int chunk, int64_t* total);

}  // namespace idem::testing
