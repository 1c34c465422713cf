// Deadlocks between consumers on a server store, on demand: transfers between
// the same two accounts in opposite directions, whose handlers hold their
// source account's row lock until the other direction holds its own, so the
// next UPDATE of each closes a cycle and the server kills one transaction.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "idem/handler.h"
#include "idem/message.h"

namespace idem::testing {

// Opens once `parties` handlers have arrived, and then stays open. Bounded, so
// a bug cannot hang the test.
class OneShotBarrier {
 public:
  explicit OneShotBarrier(int parties) : left_(parties) {}
  void ArriveAndWait();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int left_;
};

// `n` transfers T0…T<n-1> on topic "transfer": the even ones move 7 from u1 to
// u2, the odd ones 3 from u2 to u1 (accounts table "accounts (owner, balance)").
std::vector<Message> OpposingTransfers(int n);

// {"transfer_id", "from", "to", "amount"}: debit with ChangeBalance, wait at
// `barrier`, credit, then one effect row by `effect_sql` (parameters:
// idempotency key, message id, amount). A failed guard becomes a retryable
// result, as handlers write it.
HandlerSpec TransferHandler(OneShotBarrier* barrier, std::string effect_sql);

}  // namespace idem::testing
