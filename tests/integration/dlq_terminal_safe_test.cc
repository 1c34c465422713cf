// `idem dlq list/show` print what a producer chose — key, body, reason, topic,
// headers — so a dead letter must not be able to drive the operator's
// terminal: no raw control byte reaches the text output (escape sequences,
// newlines that would forge a line, NUL that would cut a value short, bytes
// that are not UTF-8), each shows in its escaped form; --json keeps the bytes
// exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "idem/embedded_queue.h"
#include "integration/run_idem.h"
#include "testing/test_util.h"

namespace idem {
namespace {

using namespace idem::testing;
using nlohmann::json;

// ESC sequences (a colour and a screen clear), a newline forging a line, NUL,
// a byte that is never UTF-8.
const std::string kKey = std::string("pay\0evil", 8) + "\x1b[31mred\n" + "\xff";
const std::string kPayload = std::string("{\"id\":1}\n\x1b[2J") + std::string("\0", 1) + "\xfe\x80";
const std::string kReason = "bad\nFORGED LINE \x1b]0;title\x07" + std::string("\0", 1) + "tail\xc3";
const std::string kTopic = "pay\x1b[1m";

// The control bytes a terminal acts on: everything below 0x20 but the line
// feeds the command itself writes, and DEL.
bool HasRawControl(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
  return false;
}

size_t Lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

std::string DecodeBase64(const std::string& text) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '=') break;
    bits = bits << 6 | static_cast<uint32_t>(kAlphabet.find(c));
    if ((count += 6) >= 8) out.push_back(static_cast<char>((bits >> (count -= 8)) & 0xff));
  }
  return out;
}

// A field written by --json: its text, or the bytes behind FIELD_base64.
std::string Field(const json& j, const std::string& name) {
  if (j.contains(name)) return j[name].get<std::string>();
  EXPECT_TRUE(j.contains(name + "_base64")) << name << " missing in " << j.dump();
  return DecodeBase64(j[name + "_base64"].get<std::string>());
}

class DlqTerminalSafeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto q = EmbeddedQueue::Open(Queue(), {}, Env::Default());
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    Message m;
    m.topic = kTopic;
    m.key = kKey;
    m.payload = kPayload;
    m.headers["trace"] = "a\x1b[0m\nb";
    auto id = (*q)->ParkRejected(m, kReason);
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    id_ = std::to_string(*id);
  }
  std::string Queue() const { return dir_.File("q.db"); }

  TempDir dir_;
  std::string id_;
};

TEST_F(DlqTerminalSafeTest, ListShowsEveryControlByteEscapedOnOneLine) {
  ProcessResult r = Idem({"dlq", "list", "--queue", Queue()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(HasRawControl(r.out)) << r.out;
  EXPECT_EQ(Lines(r.out), 2u) << "a header and one line for the one dead letter:\n" << r.out;
  EXPECT_NE(r.out.find("bad\\nFORGED LINE \\x1b]0;title\\x07\\0tail\\xc3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pay\\x1b[1m"), std::string::npos) << r.out;
}

TEST_F(DlqTerminalSafeTest, ShowEscapesKeyBodyReasonAndHeaders) {
  ProcessResult r = Idem({"dlq", "show", "--queue", Queue(), id_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(HasRawControl(r.out)) << r.out;
  EXPECT_EQ(r.out.find("FORGED LINE"), r.out.rfind("FORGED LINE"));
  EXPECT_EQ(r.out.find("\nFORGED"), std::string::npos) << "the reason's newline started a line:\n" << r.out;
  EXPECT_NE(r.out.find("business key  pay\\0evil\\x1b[31mred\\n\\xff\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reason        bad\\nFORGED LINE \\x1b]0;title\\x07\\0tail\\xc3\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("{\"id\":1}\\n\\x1b[2J\\0\\xfe\\x80\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("trace: a\\x1b[0m\\nb"), std::string::npos) << r.out;
}

TEST_F(DlqTerminalSafeTest, JsonParsesAndKeepsEveryByte) {
  ProcessResult show = Idem({"dlq", "show", "--queue", Queue(), "--json", id_});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_FALSE(HasRawControl(show.out)) << "JSON escapes control characters";
  EXPECT_EQ(Lines(show.out), 1u);
  const json j = json::parse(show.out);
  EXPECT_EQ(Field(j, "key"), kKey);
  EXPECT_EQ(Field(j, "payload"), kPayload);
  EXPECT_EQ(Field(j, "reason"), kReason);
  EXPECT_EQ(Field(j, "topic"), kTopic);
  EXPECT_EQ(j["headers"]["trace"], "a\x1b[0m\nb");

  ProcessResult list = Idem({"dlq", "list", "--queue", Queue(), "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  ASSERT_EQ(Lines(list.out), 1u) << list.out;
  const json row = json::parse(list.out);
  EXPECT_EQ(Field(row, "key"), kKey);
  EXPECT_EQ(Field(row, "reason"), kReason);
  EXPECT_EQ(Field(row, "topic"), kTopic);
}

TEST_F(DlqTerminalSafeTest, ValidTextStaysReadableAndNulSurvivesInJson) {
  auto q = EmbeddedQueue::Open(Queue(), {}, Env::Default());
  ASSERT_TRUE(q.ok());
  Message m;
  m.topic = "pay";
  m.key = std::string("pay\0evil", 8);
  m.payload = "{\"name\":\"Zoë\"}";
  auto id = (*q)->ParkRejected(m, "reason with é and a \\ backslash");
  ASSERT_TRUE(id.ok());
  ProcessResult r = Idem({"dlq", "show", "--queue", Queue(), std::to_string(*id)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("business key  pay\\0evil\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{\"name\":\"Zoë\"}"), std::string::npos) << "valid UTF-8 prints as it is:\n" << r.out;
  EXPECT_NE(r.out.find("with é and a \\\\ backslash"), std::string::npos) << r.out;
  ProcessResult js = Idem({"dlq", "show", "--queue", Queue(), "--json", std::to_string(*id)});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  EXPECT_NE(js.out.find("pay\\u0000evil"), std::string::npos) << "NUL as \\u0000: " << js.out;
  EXPECT_EQ(json::parse(js.out)["key"], m.key);
}

}  // namespace
}  // namespace idem
