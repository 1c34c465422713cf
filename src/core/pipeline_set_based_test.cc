// Set-based handlers (HandlerSpec::batch_fn): a batch's messages for one
// handler run in one call, and a failing message still fails alone.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/pipeline_test_fixture.h"

namespace idem {
namespace {

struct Calls {
  int batch = 0;
  int single = 0;
};

// PayHandler's effect (one row in `effects`) for many messages in one INSERT;
// a message whose amount is negative is refused, by both forms.
HandlerSpec SetBasedPay(Calls* calls) {
  HandlerSpec spec = testing::PayHandler();
  HandlerFn one = spec.fn;
  spec.fn = [one, calls](HandlerContext& ctx) -> HandlerResult {
    calls->single++;
    if (nlohmann::json::parse(ctx.message.payload).at("amount").get<int64_t>() < 0)
      return HandlerResult::Permanent("negative amount");
    return one(ctx);
  };
  spec.batch_fn = [calls](std::span<HandlerContext* const> all) {
    calls->batch++;
    std::string sql = "INSERT INTO effects (key, msg_id, amount) VALUES ";
    std::vector<Value> params;
    std::vector<HandlerResult> out;
    for (HandlerContext* c : all) {
      const int64_t amount = nlohmann::json::parse(c->message.payload).at("amount").get<int64_t>();
      out.push_back(amount < 0 ? HandlerResult::Permanent("negative amount") : HandlerResult::Ok("set"));
      sql += params.empty() ? "(?, ?, ?)" : ", (?, ?, ?)";
      params.insert(params.end(), {c->idempotency_key, c->message.id, amount});
    }
    auto n = all.front()->tx.Exec(sql, params);  // written even when a result says no: it must be rolled back
    if (!n.ok()) out.assign(all.size(), HandlerResult::Retryable(n.status().ToString()));
    return out;
  };
  return spec;
}

class PipelineSetBasedTest : public PipelineFixture {};

TEST_F(PipelineSetBasedTest, ABatchRunsInOneCall) {
  Calls calls;
  auto p = Make({}, SetBasedPay(&calls));
  for (const char* id : {"A", "B", "C"}) Publish(std::string(R"({"payment_id":")") + id + R"(","amount":5})");
  BatchReport r = p->RunOnce();
  EXPECT_EQ(r.first, 3u);
  EXPECT_EQ(calls.batch, 1);
  EXPECT_EQ(calls.single, 0);
  EXPECT_EQ(testing::CountEffects(*store_), 3);
  EXPECT_EQ(ReadRecord("pay:B").result_summary, "set");
  EXPECT_EQ(ReadRecord("pay:B").attempts, 1);
}

TEST_F(PipelineSetBasedTest, AFailingMessageFailsAloneAndItsNeighboursAreApplied) {
  Calls calls;
  auto p = Make({}, SetBasedPay(&calls));
  Publish(R"({"payment_id":"A","amount":1})");
  Publish(R"({"payment_id":"B","amount":-2})");
  Publish(R"({"payment_id":"C","amount":3})");
  BatchReport r = p->RunOnce();
  EXPECT_EQ(r.first, 2u);
  EXPECT_EQ(r.parked, 1u);
  EXPECT_EQ(calls.batch, 1);
  EXPECT_EQ(calls.single, 3) << "after the set failed, each message ran alone";
  // The set's rows were rolled back: one effect per applied payment, none for B.
  EXPECT_EQ(testing::CountEffects(*store_), 2);
  EXPECT_EQ(testing::CountEffects(*store_, "pay:B"), 0);
  EXPECT_EQ(ReadRecord("pay:B").status, RecordStatus::kFailed);
  EXPECT_EQ(ReadRecord("pay:A").status, RecordStatus::kSucceeded);
}

TEST_F(PipelineSetBasedTest, ASetThatThrowsFallsBackToOneRunPerMessage) {
  Calls calls;
  HandlerSpec spec = SetBasedPay(&calls);
  spec.batch_fn = [](std::span<HandlerContext* const> all) -> std::vector<HandlerResult> {
    (void)all.front()->tx.Exec("INSERT INTO effects (key, msg_id, amount) VALUES ('stray', 'x', 1)", {});
    throw std::runtime_error("set step failed");
  };
  auto p = Make({}, spec);
  Publish(R"({"payment_id":"A","amount":1})");
  Publish(R"({"payment_id":"C","amount":3})");
  BatchReport r = p->RunOnce();
  EXPECT_EQ(r.first, 2u);
  EXPECT_EQ(calls.single, 2);
  EXPECT_EQ(testing::CountEffects(*store_), 2);
  EXPECT_EQ(testing::CountEffects(*store_, "stray"), 0);
}

}  // namespace
}  // namespace idem
