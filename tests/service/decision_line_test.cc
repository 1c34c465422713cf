// The decision log's line is written straight into a string (decision_line.h)
// instead of through a JSON object per message; it must be the very line the
// object path writes, byte for byte, whatever the key, topic or reason holds.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "service/decision_line.h"
#include "service/json_log.h"

namespace idem {
namespace {

// The wall clock stands still, so both paths stamp the same "ts".
class StillClock final : public Env {
 public:
  int64_t NowMs() override { return 1'796'000'123'456; }
  int64_t MonotonicMicros() override { return 0; }
  void SleepMs(int64_t) override {}
  uint64_t Random64() override { return 4; }
  TaskId ScheduleAfter(int64_t, std::function<void()>) override { return 1; }
  bool Cancel(TaskId) override { return false; }
};

// The fields the decision line held when it was a JSON object.
nlohmann::json ObjectFields(const Decision& d, const std::string& worker) {
  nlohmann::json j{{"worker", worker},       {"decision", DecisionName(d.kind)}, {"group", d.consumer_group},
                   {"topic", d.topic},       {"key", d.key},                     {"msg_id", d.message_id},
                   {"attempt", d.attempt},   {"delivery", d.delivery_count},     {"latency_us", d.latency_us}};
  if (!d.reason.empty()) j["reason"] = d.reason;
  if (d.kind == DecisionKind::kRetry) j["rung"] = d.rung;
  if (d.delay_ms) j["delay_ms"] = d.delay_ms;
  return j;
}

std::string ObjectLine(const Decision& d, const std::string& worker) {
  StillClock clock;
  std::ostringstream out;
  service::JsonLog log(&out, &clock);
  log.Info("decision", ObjectFields(d, worker));
  return out.str();
}

std::string DirectLine(const Decision& d, const std::string& worker) {
  StillClock clock;
  std::ostringstream out;
  service::JsonLog log(&out, &clock);
  std::string line = "left over from the last line";
  line.clear();
  service::AppendDecisionLine(&line, log.Now().text(), d, worker);
  log.WriteLine(line);
  return out.str();
}

std::string Hex(const std::string& s) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) out += {kDigits[c >> 4], kDigits[c & 0xF], ' '};
  return out;
}

const std::vector<std::string>& AwkwardTexts() {
  static const std::vector<std::string> texts = {
      "",
      "order-42",
      "say \"hi\"",
      "C:\\path\\to\\x",
      std::string("nul\0byte", 8),
      "\b\t\n\f\r\x01\x1f\x7f",
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",   // valid UTF-8 stays as it is
      "bad \xff lead",
      "cut \xe2\x82",                                // a sequence cut by the end
      "cut \xe2\x82x then more",                     // cut by a byte that is read again
      "\xc0\xaf overlong, \xed\xa0\x80 surrogate, \xf4\x90\x80\x80 too high",
      "\x80\xbf lone continuations",
      std::string(300, 'k') + "\"\\" + std::string(200, '\n'),  // long, past any small buffer
  };
  return texts;
}

TEST(DecisionLineTest, IsTheLineTheJsonObjectWroteForAwkwardContent) {
  const DecisionKind kinds[] = {DecisionKind::kFirst, DecisionKind::kDuplicate, DecisionKind::kRetry,
                                DecisionKind::kParked, DecisionKind::kConflict, DecisionKind::kReleased};
  int compared = 0;
  for (const std::string& text : AwkwardTexts())
    for (DecisionKind kind : kinds) {
      Decision d;
      d.kind = kind;
      d.consumer_group = "payments " + text;
      d.topic = text + "pay.success";
      d.key = text;
      d.message_id = "m-" + text;
      d.attempt = kind == DecisionKind::kRetry ? 3 : 1;
      d.delivery_count = 7;
      d.reason = kind == DecisionKind::kFirst || kind == DecisionKind::kDuplicate ? "" : "handler said: " + text;
      d.rung = 2;
      d.delay_ms = kind == DecisionKind::kRetry || kind == DecisionKind::kReleased ? 1500 : 0;
      d.latency_us = -12;  // a clock step can make it negative; it is written as it is
      const std::string worker = "w" + text;
      EXPECT_EQ(DirectLine(d, worker), ObjectLine(d, worker)) << "text " << Hex(text);
      ++compared;
    }
  EXPECT_EQ(compared, 78);
}

TEST(DecisionLineTest, ExtremeNumbersAreWrittenAsTheJsonObjectWroteThem) {
  Decision d;
  d.kind = DecisionKind::kRetry;
  d.attempt = INT32_MIN;
  d.delivery_count = INT32_MAX;
  d.rung = -1;
  d.delay_ms = INT64_MAX;
  d.latency_us = INT64_MIN;
  EXPECT_EQ(DirectLine(d, "w"), ObjectLine(d, "w"));
}

// Every string of up to four bytes drawn from the bytes where escaping and
// UTF-8 decoding change their minds: written as nlohmann::json's dump writes it.
TEST(DecisionLineTest, StringsAreEscapedAsNlohmannDumpsThem) {
  const unsigned char edges[] = {0x00, 0x1f, 0x20, '"', '\\', 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf,
                                 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff};
  const size_t n = sizeof edges;
  size_t checked = 0, mismatched = 0;
  std::string s, direct;
  for (size_t len = 1; len <= 4; ++len) {
    size_t combinations = 1;
    for (size_t i = 0; i < len; ++i) combinations *= n;
    for (size_t c = 0; c < combinations; ++c) {
      s.clear();
      for (size_t i = 0, rest = c; i < len; ++i, rest /= n) s += static_cast<char>(edges[rest % n]);
      direct.clear();
      service::AppendJsonString(&direct, s);
      const std::string expected = nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      if (direct != expected && ++mismatched <= 5)
        ADD_FAILURE() << "string " << Hex(s) << ": got " << direct << ", nlohmann wrote " << expected;
      ++checked;
    }
  }
  EXPECT_EQ(mismatched, 0u);
  EXPECT_EQ(checked, 24u + 24 * 24 + 24 * 24 * 24 + 24 * 24 * 24 * 24);
}

}  // namespace
}  // namespace idem
