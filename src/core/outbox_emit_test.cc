// HandlerContext::Emit: outgoing messages commit with the handler's effects and
// roll back with its savepoint.
#include <gtest/gtest.h>

#include "core/pipeline_test_fixture.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using testing::QueryInt;

// Emits `points.grant` keyed by the payment; an amount of 0 fails after emitting.
HandlerSpec EmittingHandler(HandlerResult::Outcome failure = HandlerResult::Outcome::kPermanent) {
  HandlerSpec spec;
  spec.topic = "pay";
  spec.key.fields = {"payment_id"};
  spec.fn = [failure](HandlerContext& ctx) {
    const std::string id = ctx.payload.Text("payment_id").value_or("");
    OutgoingMessage out{"points.grant", "grant:" + id, R"({"payment_id":")" + id + "\"}", {{"trace", "t-" + id}}};
    if (Status s = ctx.Emit(out); !s.ok()) return HandlerResult::FromStatus(s, "emit points.grant");
    if (ctx.payload.Text("amount") == "0")
      return failure == HandlerResult::Outcome::kPermanent ? HandlerResult::Permanent("zero amount")
                                                           : HandlerResult::Retryable("zero amount");
    return HandlerResult::Ok();
  };
  return spec;
}

using OutboxEmitTest = PipelineFixture;

TEST_F(OutboxEmitTest, EmittedMessageCommitsWithTheRecord) {
  Publish(R"({"payment_id":"A","amount":1})");
  Publish(R"({"payment_id":"A","amount":1})");  // a copy: absorbed, emits nothing more
  Drain(*Make({}, EmittingHandler()));
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox"), 1);
  EXPECT_EQ(QueryInt(*store_,
                     "SELECT COUNT(*) FROM idem_outbox WHERE topic = 'points.grant' AND msg_key = 'grant:A' AND "
                     "state = 'PENDING' AND headers = '{\"trace\":\"t-A\"}' AND length(message_id) = 32"),
            1);
}

TEST_F(OutboxEmitTest, FailedHandlerLeavesNoOutgoingMessageButNeighboursKeepTheirs) {
  Publish(R"({"payment_id":"A","amount":1})");
  Publish(R"({"payment_id":"B","amount":0})");
  Publish(R"({"payment_id":"C","amount":3})");
  Drain(*Make({}, EmittingHandler()));
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox"), 2);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox WHERE msg_key = 'grant:B'"), 0);
}

TEST_F(OutboxEmitTest, RetriedHandlerEmitsOnceWhenItFinallySucceeds) {
  PipelineOptions o;
  o.retry.in_process_tries = 3;
  int runs = 0;
  HandlerSpec spec = EmittingHandler();
  spec.fn = [inner = spec.fn, &runs](HandlerContext& ctx) {
    HandlerResult r = inner(ctx);
    return ++runs < 3 ? HandlerResult::Retryable("glitch") : r;
  };
  Publish(R"({"payment_id":"A","amount":1})");
  Drain(*Make(o, spec));
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox"), 1);
}

TEST_F(OutboxEmitTest, MessageWithoutKeyIsRefused) {
  HandlerSpec spec;
  spec.topic = "pay";
  spec.key.fields = {"payment_id"};
  std::string error;
  spec.fn = [&error](HandlerContext& ctx) {
    Status s = ctx.Emit({"points.grant", "", "{}", {}});
    error = s.ToString();
    return HandlerResult::FromStatus(s, "emit");
  };
  Publish(R"({"payment_id":"A","amount":1})");
  Drain(*Make({}, spec));
  EXPECT_NE(error.find("without a business key"), std::string::npos) << error;
  EXPECT_EQ(QueryInt(*store_, "SELECT COUNT(*) FROM idem_outbox"), 0);
}

}  // namespace
}  // namespace idem
