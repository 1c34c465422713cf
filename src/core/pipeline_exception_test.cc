// The pipeline's exception boundary: a throw in anything derived from one
// message (its key, its handler) costs that message alone, with a reason that
// names what was thrown; its neighbours go on and the process does not end.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <vector>

#include "core/pipeline_test_fixture.h"
#include "testing/forwarding_store.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::Balance;
using testing::CountEffects;
using testing::PayHandler;

struct Oops {};  // not a std::exception

using ExceptionTest = PipelineFixture;

const Decision* DecisionFor(const std::vector<Decision>& ds, const std::string& key) {
  for (const Decision& d : ds)
    if (d.key == key) return &d;
  return nullptr;
}

// The pay handler, except that payments "BAD…" throw what `thrower` throws.
HandlerSpec ThrowingFor(void (*thrower)()) {
  HandlerSpec spec = PayHandler();
  spec.fn = [inner = spec.fn, thrower](HandlerContext& ctx) -> HandlerResult {
    if (ctx.idempotency_key.rfind("pay:BAD", 0) == 0) thrower();
    return inner(ctx);
  };
  return spec;
}

struct Case {
  void (*thrower)();
  const char* named;  // what the reason must say
};

TEST_F(ExceptionTest, AHandlerThatThrowsAnythingCostsItsMessageOnlyAndTheReasonNamesIt) {
  const Case cases[] = {
      {[] { throw std::bad_alloc(); }, "std::bad_alloc"},
      {[] { (void)std::vector<int>().at(3); }, "std::out_of_range: "},
      {[] { throw Oops(); }, "a non-standard exception of type idem::(anonymous namespace)::Oops"},
      {[] { throw 7; }, "a non-standard exception of type int"},
  };
  int round = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.named);
    decisions_.clear();
    const std::string n = std::to_string(++round);
    Publish(R"({"payment_id":"A)" + n + R"(","amount":1})");
    Publish(R"({"payment_id":"BAD)" + n + R"(","amount":1})");
    Publish(R"({"payment_id":"C)" + n + R"(","amount":1})");
    auto p = Make({}, ThrowingFor(c.thrower));
    BatchReport r = p->RunOnce();
    EXPECT_EQ(r.polled, 3u);
    EXPECT_EQ(r.first, 2u) << "the neighbours are applied";
    EXPECT_EQ(r.retried, 1u) << "a throw is treated as a retryable failure of that message";
    const Decision* bad = DecisionFor(decisions_, "pay:BAD" + n);
    ASSERT_NE(bad, nullptr);
    EXPECT_EQ(bad->kind, DecisionKind::kRetry);
    EXPECT_NE(bad->reason.find("handler threw " + std::string(c.named)), std::string::npos) << bad->reason;
  }
  EXPECT_EQ(CountEffects(*store_), 8);
  EXPECT_EQ(Balance(*store_, "u1"), 1000000 - 8);
}

// Key derivation once threw on 1e400 and recursed without bound on deep nesting;
// it now returns an error for both, and the boundary in planning stays behind it.
TEST_F(ExceptionTest, AKeyThatCannotBeDerivedParksThatMessageAndItsNeighboursGoOn) {
  const std::string deep = R"({"payment_id":"B","x":)" + std::string(100'000, '[') + std::string(100'000, ']') + "}";
  BatchReport r = RunBetweenNeighbours(deep, "deep");
  EXPECT_EQ(r.parked, 1u);
  auto dead = queue_->List(10);
  ASSERT_TRUE(dead.ok());
  ASSERT_EQ(dead->size(), 1u);
  EXPECT_EQ((*dead)[0].message.id, "deep");
  EXPECT_EQ((*dead)[0].message.payload, deep) << "parked byte-exact";
  EXPECT_NE((*dead)[0].reason.find("levels deep"), std::string::npos) << (*dead)[0].reason;
}

// A fast filter whose every call throws, as a client library may on a bug.
class ThrowingFilter final : public FastFilter {
 public:
  Result<std::vector<FilterVerdict>> Mark(std::span<const FilterRequest>, int64_t) override {
    throw std::bad_alloc();
  }
  Status Finish(std::span<const FilterRequest>, int64_t, std::span<const std::string>) override {
    throw std::runtime_error("finish failed");
  }
};

TEST_F(ExceptionTest, AFastFilterThatThrowsCountsAsOneThatIsDown) {
  Publish(R"({"payment_id":"A","amount":1})");
  auto p = Make();
  ThrowingFilter filter;
  FastFilterOptions fo;
  fo.outage_policy = FilterOutagePolicy::kOpen;
  ASSERT_TRUE(p->SetFastFilter(&filter, fo).ok());
  BatchReport r = p->RunOnce();
  EXPECT_EQ(r.first, 1u) << "fail-open: the database guard alone decides";
  EXPECT_EQ(CountEffects(*store_), 1);
  ASSERT_EQ(decisions_.size(), 1u);
  EXPECT_NE(decisions_[0].reason.find("the fast filter threw std::bad_alloc"), std::string::npos)
      << decisions_[0].reason;
}

// A source whose Poll throws, as a broker adapter that cannot decode a delivery might.
class ThrowingSource final : public Source {
 public:
  Result<std::vector<Message>> Poll(size_t, int64_t) override { throw std::length_error("bad frame"); }
  Status Settle(const std::vector<Settlement>&) override { return Status::OK(); }
  Status Abandon() override { return Status::OK(); }  // it never hands anything out
};

TEST_F(ExceptionTest, ASourceThatThrowsWhilePollingIsAnErrorNotTheEndOfTheProcess) {
  ThrowingSource source;
  Pipeline p(&source, store_.get(), &env_, PipelineOptions{});
  ASSERT_TRUE(p.Register(PayHandler()).ok());
  BatchReport r = p.RunOnce();
  EXPECT_EQ(r.polled, 0u);
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("std::length_error: bad frame"), std::string::npos) << r.status.ToString();
}

// A store whose claim throws, as a driver may on a bug.
class ThrowingClaims final : public testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;

 private:
  class Tx final : public testing::ForwardingTx {
   public:
    using ForwardingTx::ForwardingTx;
    Result<std::vector<ClaimResult>> Claim(std::string_view, std::span<const ClaimRequest>, int64_t,
                                           int64_t) override {
      throw std::runtime_error("driver bug");
    }
  };
  std::unique_ptr<StoreTx> Wrap(std::unique_ptr<StoreTx> tx) override { return std::make_unique<Tx>(std::move(tx)); }
};

TEST_F(ExceptionTest, AStoreThatThrowsReleasesTheBatchLikeAnyStoreFailure) {
  Publish(R"({"payment_id":"A","amount":1})");
  ThrowingClaims store(store_.get());
  BatchReport r = Make({}, PayHandler(), &store)->RunOnce();
  EXPECT_EQ(r.released, 1u);
  EXPECT_NE(r.status.message().find("the store threw std::runtime_error: driver bug"), std::string::npos)
      << r.status.ToString();
  EXPECT_EQ(Stats().dead, 0);
  env_.Advance(10'000);
  Drain(*Make());
  EXPECT_EQ(CountEffects(*store_), 1) << "given back, then applied by a working store";
}

}  // namespace
}  // namespace idem
