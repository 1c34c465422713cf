// Payment messages in copies, for tests that run several consumers against a
// shared store (PostgreSQL, SQLite) with PayHandler from testing/test_util.h.
#pragma once

#include <cstdint>
#include <vector>

#include "idem/message.h"

namespace idem::testing {

// Messages for PayHandler (testing/test_util.h): payments P0…P<n-1> (amount i + 1), each in
// `copies` copies under different message ids, ordered chunk by chunk — for
// each `chunk` payments, one round per copy — so a payment's copies reach
// different consumers' batches at about the same time. Adds the amounts of the
// distinct payments to *total.
std::vector<Message> PaymentCopies(int payments, int copies, int chunk, int64_t* total);

}  // namespace idem::testing
