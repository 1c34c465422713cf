// The dead-letter record sized before it is produced (record_fit.h): the
// producer's headers trimmed to message.max.bytes, idem's kept, key and value
// never touched; a value that cannot fit says why. No cluster needed.
#include "source/kafka/record_fit.h"

#include <gtest/gtest.h>

#include "source/kafka/moves.h"
#include "source/kafka/record_codec.h"

namespace idem::kafka {
namespace {

OutRecord Dead(const Message& m, const std::string& reason = "bad payment") {
  return DeadLetterRecord(m, Origin{"pay", "pay", 0, 7, "g"}, reason, 2, 1'700'000'000'000);
}

bool Has(const OutRecord& r, const std::string& name) {
  for (const auto& h : r.headers)
    if (h.first == name) return true;
  return false;
}

TEST(KafkaRecordFit, ProducerHeadersAreTrimmedAndIdemsKept) {
  Message m;
  m.topic = "pay";
  m.key = "P1";
  m.payload = R"({"payment_id":"P1"})";
  for (int i = 0; i < 4; ++i) m.headers["x-big-" + std::to_string(i)] = std::string(100'000, 'h');
  m.headers["x-small"] = "kept";
  OutRecord r = Dead(m);
  RecordFit fit = FitRecord(r, 300'000);
  ASSERT_TRUE(fit.fits) << fit.why_not;
  EXPECT_LE(RecordWireSize(r), 300'000u);
  EXPECT_EQ(fit.dropped_headers, 2u);
  EXPECT_TRUE(Has(r, "x-big-0") && Has(r, "x-big-1") && Has(r, "x-small"));
  EXPECT_FALSE(Has(r, "x-big-2") || Has(r, "x-big-3"));
  EXPECT_TRUE(Has(r, header::kReason) && Has(r, header::kOriginalTopic) && Has(r, header::kAttempts));
  ASSERT_TRUE(Has(r, kHeadersTrimmedHeader));
  EXPECT_EQ(r.value, m.payload);
  EXPECT_EQ(r.key, "P1");
}

TEST(KafkaRecordFit, AValueAtTheLimitCannotFitAndSaysWhy) {
  Message m;
  m.topic = "pay";
  m.payload = std::string(300'000, 'v');
  OutRecord r = Dead(m);
  RecordFit fit = FitRecord(r, 300'000);
  EXPECT_FALSE(fit.fits);
  EXPECT_NE(fit.why_not.find("over the producer's message.max.bytes of 300,000"), std::string::npos) << fit.why_not;
  EXPECT_EQ(r.value, m.payload);
}

}  // namespace
}  // namespace idem::kafka
