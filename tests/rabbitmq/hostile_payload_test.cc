// An external AMQP producer (amqp-publish from amqp-tools, not idem) sends
// hostile bodies to RabbitMQ: a number beyond double range and JSON nested
// 100,000 levels deep, between two good payments. The consumer stays up: each
// hostile message is parked with a reason that names the problem, its body in
// the dead-letter queue is byte-exact, and both good payments are applied once.
#include <nlohmann/json.hpp>

#include "rabbitmq/rabbit_fixture.h"

namespace idem::testing {
namespace {

class RabbitHostile : public RabbitTest {
 protected:
  // amqp-publish reads the body from stdin when -b is not given: a 200 kB body
  // does not fit in one command-line argument.
  void PublishFromStdin(const std::string& body) {
    CommandResult r = RunCommand({"amqp-publish", "-u", base_url_, "-e", queue_, "-r", "pay", "-p", "-C",
                                  "application/json"},
                                 body);
    ASSERT_EQ(r.status, 0) << "amqp-publish failed: " << r.out;
  }
};

// The test payments handler, but one that, like a careful service, reads its
// payload without exceptions and refuses for good what it cannot read.
HandlerSpec CarefulPayHandler() {
  HandlerSpec spec = PayHandler();
  spec.fn = [inner = spec.fn](HandlerContext& ctx) {
    if (nlohmann::json::parse(ctx.message.payload, nullptr, false).is_discarded())
      return HandlerResult::Permanent("payload has a value this service cannot read (a number out of range?)");
    return inner(ctx);
  };
  return spec;
}

TEST_F(RabbitHostile, HugeNumberAndDeepNestingAreParkedAndTheNeighboursApplied) {
  IDEM_REQUIRE_RABBITMQ();
  const std::string huge = R"({"payment_id":"P-huge","amount":1e400})";
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  auto broker = OpenQueue();  // declares the topology before the external publishes
  ASSERT_NE(broker, nullptr);
  AmqpToolsPublish(R"({"payment_id":"P1","amount":5})");
  AmqpToolsPublish(huge);
  PublishFromStdin(deep);
  AmqpToolsPublish(R"({"payment_id":"P2","amount":6})");

  Pipeline pipeline(&broker->source(), store_.get(), Env::Default(), Options());
  ASSERT_TRUE(pipeline.Register(CarefulPayHandler()).ok());
  EXPECT_TRUE(RunUntil(pipeline, [&] {
    return pipeline.counters().parked >= 2 && Effects("P1") == 1 && Effects("P2") == 1;
  })) << "parked " << pipeline.counters().parked;
  // The consumer is alive and keeps consuming: one more payment goes through.
  AmqpToolsPublish(R"({"payment_id":"P3","amount":7})");
  EXPECT_TRUE(RunUntil(pipeline, [&] { return Effects("P3") == 1; }));
  broker.reset();

  auto dead = Dead();
  ASSERT_EQ(dead.size(), 2u);
  std::map<std::string, std::string> reason_by_body;
  for (const DeadLetter& d : dead) reason_by_body[d.message.payload] = d.reason;
  ASSERT_EQ(reason_by_body.count(huge), 1u) << "the 1e400 body is byte-exact in the dead-letter queue";
  ASSERT_EQ(reason_by_body.count(deep), 1u) << "the deep body is byte-exact in the dead-letter queue";
  EXPECT_NE(reason_by_body[deep].find("nests 100000 levels deep, over the limit of 64"), std::string::npos)
      << reason_by_body[deep];
  EXPECT_NE(reason_by_body[huge].find("cannot read"), std::string::npos) << reason_by_body[huge];
  EXPECT_EQ(Effects("P-huge"), 0);
  EXPECT_EQ(CountEffects(*store_), 3);
}

}  // namespace
}  // namespace idem::testing
