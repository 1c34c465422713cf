#include "ops/reconcile/rewrap_status.h"

#include <gtest/gtest.h>

namespace idem::reconcile {
namespace {

// A caller still asks the rewrapped status what to do (retry? re-read?).
TEST(RewrapStatusTest, KeepsTheKindAndReplacesTheMessage) {
  for (const Status& s : {Status::InvalidArgument("a"), Status::NotFound("a"), Status::AlreadyExists("a"),
                          Status::Retryable("a"), Status::Unavailable("a"), Status::Busy("a"), Status::InDoubt("a"),
                          Status::Permanent("a"), Status::Corruption("a"), Status::IOError("a"),
                          Status::TransactionConflict("a"), Status::NotSupported("a")}) {
    const Status r = Rewrap(s, "while reversing: a");
    EXPECT_EQ(r.code(), s.code()) << s.ToString();
    EXPECT_EQ(r.message(), "while reversing: a");
  }
  EXPECT_TRUE(Rewrap(Status::OK(), "x").ok());
}

}  // namespace
}  // namespace idem::reconcile
