#include "core/json_exact.h"

#include <algorithm>
#include <cstdio>

namespace idem {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

// Recursive descent; the depth was bounded by ScanJsonLimits and is checked
// again on every container, so recursion cannot outgrow the limit even if the
// scan and the parser ever disagreed about where a string ends.
class Parser {
 public:
  Parser(std::string_view in, size_t max_depth) : in_(in), max_depth_(max_depth) {}

  Status Document(JsonValue* out) {
    if (in_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // a UTF-8 byte order mark, as JSON libraries accept
    SkipWhitespace();
    if (Value(out, 0)) {
      SkipWhitespace();
      if (pos_ == in_.size()) return Status::OK();
      Fail("unexpected text after the JSON value");
    }
    return Status::InvalidArgument("payload is not valid JSON: " + error_ + " at byte " + std::to_string(error_at_));
  }

 private:
  bool Fail(std::string what) {
    error_ = std::move(what);
    error_at_ = pos_;
    return false;
  }
  bool AtEnd() const { return pos_ >= in_.size(); }
  char Peek() const { return AtEnd() ? '\0' : in_[pos_]; }
  void SkipWhitespace() {
    while (!AtEnd() && (in_[pos_] == ' ' || in_[pos_] == '\t' || in_[pos_] == '\n' || in_[pos_] == '\r')) ++pos_;
  }
  std::string Shown(char c) const {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", u);
    return buf;
  }

  bool Value(JsonValue* out, size_t depth) {
    if (AtEnd()) return Fail("unexpected end of input");
    const char c = in_[pos_];
    switch (c) {
      case '{': return Object(out, depth + 1);
      case '[': return Array(out, depth + 1);
      case '"':
        out->kind = JsonValue::Kind::kString;
        return String(&out->text);
      case 't': return Literal(out, "true", JsonValue::Kind::kBool);
      case 'f': return Literal(out, "false", JsonValue::Kind::kBool);
      case 'n': return Literal(out, "null", JsonValue::Kind::kNull);
      default:
        if (c == '-' || IsDigit(c)) return Number(out);
        return Fail("unexpected character " + Shown(c));
    }
  }

  bool Literal(JsonValue* out, std::string_view word, JsonValue::Kind kind) {
    if (in_.substr(pos_, word.size()) != word) return Fail("invalid literal (expected " + std::string(word) + ")");
    pos_ += word.size();
    out->kind = kind;
    if (kind == JsonValue::Kind::kBool) out->text = std::string(word);
    return true;
  }

  bool Digits() {
    if (!IsDigit(Peek())) return false;
    while (IsDigit(Peek())) ++pos_;
    return true;
  }

  bool Number(JsonValue* out) {
    const size_t start = pos_;
    if (Peek() == '-') ++pos_;
    if (Peek() == '0') ++pos_;
    else if (!Digits()) return Fail("a number needs a digit after '-'");
    if (IsDigit(Peek())) return Fail("a number cannot have a leading zero");
    bool integer = true;
    if (Peek() == '.') {
      ++pos_;
      if (!Digits()) return Fail("a number needs digits after '.'");
      integer = false;
    }
    const size_t mantissa_end = pos_;
    out->kind = JsonValue::Kind::kNumber;
    if (Peek() != 'e' && Peek() != 'E') {
      out->text = std::string(in_.substr(start, pos_ - start));
      if (integer && out->text == "-0") out->text = "0";
      return true;
    }
    ++pos_;
    bool negative_exponent = false;
    if (Peek() == '+' || Peek() == '-') negative_exponent = in_[pos_++] == '-';
    const size_t digits = pos_;
    if (!Digits()) return Fail("a number needs digits in its exponent");
    std::string_view exponent = in_.substr(digits, pos_ - digits);
    exponent.remove_prefix(std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
    if (exponent == "0") negative_exponent = false;
    out->text = std::string(in_.substr(start, mantissa_end - start));
    out->text += negative_exponent ? "e-" : "e";
    out->text += exponent;
    return true;
  }

  bool Hex4(uint32_t* cp) {
    if (pos_ + 4 > in_.size()) return Fail("a \\u escape needs four hex digits");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = in_[pos_++];
      v <<= 4;
      if (IsDigit(h)) v |= static_cast<uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f') v |= static_cast<uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') v |= static_cast<uint32_t>(h - 'A' + 10);
      else return Fail("a \\u escape needs four hex digits");
    }
    *cp = v;
    return true;
  }

  bool Escape(std::string* out) {
    if (AtEnd()) return Fail("unterminated string");
    const char e = in_[pos_++];
    switch (e) {
      case '"': case '\\': case '/': out->push_back(e); return true;
      case 'b': out->push_back('\b'); return true;
      case 'f': out->push_back('\f'); return true;
      case 'n': out->push_back('\n'); return true;
      case 'r': out->push_back('\r'); return true;
      case 't': out->push_back('\t'); return true;
      case 'u': break;
      default: --pos_; return Fail("invalid escape \\" + std::string(1, e) + " in a string");
    }
    uint32_t cp = 0;
    if (!Hex4(&cp)) return false;
    if (cp >= 0xdc00 && cp <= 0xdfff) return Fail("a \\u escape is a lone low surrogate");
    if (cp >= 0xd800 && cp <= 0xdbff) {
      uint32_t low = 0;
      if (in_.substr(pos_, 2) != "\\u") return Fail("a high surrogate \\u escape is not followed by a low one");
      pos_ += 2;
      if (!Hex4(&low)) return false;
      if (low < 0xdc00 || low > 0xdfff) return Fail("a high surrogate \\u escape is not followed by a low one");
      cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    }
    AppendUtf8(out, cp);
    return true;
  }

  bool String(std::string* out) {
    ++pos_;  // the opening quote
    for (;;) {
      if (AtEnd()) return Fail("unterminated string");
      const char c = in_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) return Fail("a control character inside a string must be escaped");
      if (c == '\\') {
        ++pos_;
        if (!Escape(out)) return false;
        continue;
      }
      // Bytes up to the next quote, backslash or control character, in one go
      // (ScanJsonLimits already checked the UTF-8).
      size_t end = pos_;
      while (end < in_.size() && in_[end] != '"' && in_[end] != '\\' && static_cast<unsigned char>(in_[end]) >= 0x20)
        ++end;
      out->append(in_.substr(pos_, end - pos_));
      pos_ = end;
    }
  }

  bool Array(JsonValue* out, size_t depth) {
    if (depth > max_depth_) return Fail("nesting deeper than " + std::to_string(max_depth_));
    out->kind = JsonValue::Kind::kArray;
    ++pos_;
    SkipWhitespace();
    if (Peek() == ']') {
      ++pos_;
      return true;
    }
    for (;;) {
      SkipWhitespace();
      out->items.emplace_back();
      if (!Value(&out->items.back(), depth)) return false;
      SkipWhitespace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == ']') {
        ++pos_;
        return true;
      }
      return AtEnd() ? Fail("unexpected end of input in an array") : Fail("expected ',' or ']' in an array");
    }
  }

  bool Object(JsonValue* out, size_t depth) {
    if (depth > max_depth_) return Fail("nesting deeper than " + std::to_string(max_depth_));
    out->kind = JsonValue::Kind::kObject;
    ++pos_;
    SkipWhitespace();
    if (Peek() == '}') {
      ++pos_;
      return true;
    }
    std::vector<JsonMember> members;
    for (;;) {
      SkipWhitespace();
      if (Peek() != '"') return AtEnd() ? Fail("unexpected end of input in an object") : Fail("expected a member name in quotes");
      members.emplace_back();
      if (!String(&members.back().name)) return false;
      SkipWhitespace();
      if (Peek() != ':') return Fail("expected ':' after a member name");
      ++pos_;
      SkipWhitespace();
      if (!Value(&members.back().value, depth)) return false;
      SkipWhitespace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == '}') {
        ++pos_;
        break;
      }
      return AtEnd() ? Fail("unexpected end of input in an object") : Fail("expected ',' or '}' in an object");
    }
    // Sorted by name; a repeated name keeps its last value (as JSON libraries do).
    std::stable_sort(members.begin(), members.end(),
                     [](const JsonMember& a, const JsonMember& b) { return a.name < b.name; });
    for (JsonMember& m : members) {
      if (!out->members.empty() && out->members.back().name == m.name) out->members.back().value = std::move(m.value);
      else out->members.push_back(std::move(m));
    }
    return true;
  }

  std::string_view in_;
  size_t max_depth_;
  size_t pos_ = 0;
  std::string error_;
  size_t error_at_ = 0;
};

void AppendString(std::string* out, const std::string& s) {
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          *out += buf;
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

void Append(std::string* out, const JsonValue& v) {
  switch (v.kind) {
    case JsonValue::Kind::kNull: *out += "null"; return;
    case JsonValue::Kind::kBool:
    case JsonValue::Kind::kNumber: *out += v.text; return;
    case JsonValue::Kind::kString: AppendString(out, v.text); return;
    case JsonValue::Kind::kArray:
      out->push_back('[');
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out->push_back(',');
        Append(out, v.items[i]);
      }
      out->push_back(']');
      return;
    case JsonValue::Kind::kObject:
      out->push_back('{');
      for (size_t i = 0; i < v.members.size(); ++i) {
        if (i) out->push_back(',');
        AppendString(out, v.members[i].name);
        out->push_back(':');
        Append(out, v.members[i].value);
      }
      out->push_back('}');
      return;
  }
}

}  // namespace

const JsonValue* JsonValue::Find(std::string_view name) const {
  auto it = std::lower_bound(members.begin(), members.end(), name,
                             [](const JsonMember& m, std::string_view n) { return m.name < n; });
  return it != members.end() && it->name == name ? &it->value : nullptr;
}

const char* JsonValue::KindName() const {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "boolean";
    case Kind::kNumber: return "number";
    case Kind::kString: return "string";
    case Kind::kArray: return "array";
    case Kind::kObject: return "object";
  }
  return "value";
}

Result<JsonValue> ParseExactJson(std::string_view payload, const JsonLimits& limits) {
  JsonValue doc;
  IDEM_RETURN_IF_ERROR(Parser(payload, limits.EffectiveDepth()).Document(&doc));
  return doc;
}

std::string CanonicalJson(const JsonValue& value) {
  std::string out;
  Append(&out, value);
  return out;
}

}  // namespace idem
