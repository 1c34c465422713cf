#include "idem/payload.h"

#include <charconv>

#include "core/bounded_text.h"
#include "core/json_exact.h"

namespace idem {
namespace {

// Decodes one reference token of a JSON pointer ("~1" → '/', "~0" → '~').
std::string Unescape(std::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out.push_back(token[i + 1] == '0' ? '~' : '/');
      ++i;
    } else {
      out.push_back(token[i]);
    }
  }
  return out;
}

// An array index token: digits only, no leading zero (RFC 6901).
std::optional<size_t> Index(std::string_view token) {
  if (token.empty() || (token.size() > 1 && token[0] == '0')) return std::nullopt;
  size_t n = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), n);
  if (ec != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return n;
}

const JsonValue* Step(const JsonValue* v, std::string_view token) {
  if (v->kind == JsonValue::Kind::kObject) return v->Find(Unescape(token));
  if (v->kind == JsonValue::Kind::kArray) {
    auto i = Index(token);
    return i && *i < v->items.size() ? &v->items[*i] : nullptr;
  }
  return nullptr;
}

std::string Shown(std::string_view path) { return "field '" + std::string(path) + "'"; }

const char* KindWord(const JsonValue* v) { return v ? v->KindName() : "missing"; }

}  // namespace

Result<Payload> Payload::Parse(std::string_view bytes) {
  const JsonLimits limits;
  IDEM_RETURN_IF_ERROR(ScanJsonLimits(bytes, limits));
  auto doc = ParseExactJson(bytes, limits);
  if (!doc.ok()) return doc.status();
  return Payload(std::make_shared<const JsonValue>(std::move(*doc)));
}

const JsonValue* Payload::Find(std::string_view path) const {
  if (!doc_) return nullptr;
  if (path.empty() || path[0] != '/') return doc_->Find(path);
  const JsonValue* v = doc_.get();
  size_t pos = 1;
  while (v) {
    const size_t slash = path.find('/', pos);
    v = Step(v, path.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos));
    if (slash == std::string_view::npos) break;
    pos = slash + 1;
  }
  return v;
}

Payload::Kind Payload::KindOf(std::string_view path) const {
  const JsonValue* v = Find(path);
  if (!v) return Kind::kMissing;
  switch (v->kind) {
    case JsonValue::Kind::kNull: return Kind::kNull;
    case JsonValue::Kind::kBool: return Kind::kBool;
    case JsonValue::Kind::kNumber: return Kind::kNumber;
    case JsonValue::Kind::kString: return Kind::kString;
    case JsonValue::Kind::kArray: return Kind::kArray;
    case JsonValue::Kind::kObject: return Kind::kObject;
  }
  return Kind::kMissing;
}

std::optional<std::string> Payload::Text(std::string_view path) const {
  const JsonValue* v = Find(path);
  if (!v) return std::nullopt;
  switch (v->kind) {
    case JsonValue::Kind::kBool:
    case JsonValue::Kind::kNumber:
    case JsonValue::Kind::kString: return v->text;
    default: return std::nullopt;
  }
}

Result<std::string> Payload::String(std::string_view path) const {
  const JsonValue* v = Find(path);
  if (!v || v->kind != JsonValue::Kind::kString)
    return Status::InvalidArgument(Shown(path) + " must be a string, but is " + KindWord(v));
  return v->text;
}

Result<int64_t> Payload::Int(std::string_view path) const {
  const JsonValue* v = Find(path);
  if (!v || v->kind != JsonValue::Kind::kNumber)
    return Status::InvalidArgument(Shown(path) + " must be a whole number, but is " + KindWord(v));
  int64_t n = 0;
  const std::string& t = v->text;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
  if (ec == std::errc::result_out_of_range)
    return Status::InvalidArgument(Shown(path) + " is " + QuotedValue(t) + ", beyond the 64-bit range");
  if (ec != std::errc() || end != t.data() + t.size())
    return Status::InvalidArgument(Shown(path) + " is " + QuotedValue(t) + ", not a whole number");
  return n;
}

Result<bool> Payload::Bool(std::string_view path) const {
  const JsonValue* v = Find(path);
  if (!v || v->kind != JsonValue::Kind::kBool)
    return Status::InvalidArgument(Shown(path) + " must be true or false, but is " + KindWord(v));
  return v->text == "true";
}

}  // namespace idem
