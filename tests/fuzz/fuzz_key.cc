// Key derivation, canonical JSON and fingerprints on arbitrary payloads.
//
// Beyond "no crash", for every handler spec below:
// - deriving twice from equal messages gives equal results;
// - a derived key passes ValidateKey, and a fingerprint is 32 lowercase hex digits;
// - whitespace between tokens and the order of top-level members change neither
//   key nor fingerprint;
// - a key from fields is the topic, ':', and BusinessKeyFromPayload of those fields;
// - a field holding a plain integer literal appears in the key as that literal
//   (two different ids never share a key).
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/key.h"
#include "fuzz_text.h"

namespace {

using idem::HandlerSpec;
using idem::Message;
using idem::fuzz::Check;

std::vector<HandlerSpec> Specs() {
  std::vector<HandlerSpec> specs(4);
  specs[0].topic = "pay";
  specs[0].key.fields = {"id"};
  specs[1].topic = "refund";
  specs[1].key.fields = {"payment_id", "scene"};
  specs[1].fingerprint_fields = {"amount", "id"};
  specs[2].topic = "points";  // the producer's business key
  specs[3].topic = "stock";   // the broker's id
  specs[3].key.allow_broker_id = true;
  return specs;
}

bool IsHex32(const std::string& s) {
  if (s.size() != 32) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// One top-level member of a JSON object, as raw text.
struct Member {
  std::string_view text;   // "key": value
  std::string_view value;  // value, trimmed
  std::string key;         // the decoded key
};

// Splits the top-level members of `payload`, which DeriveIdentity accepted as an
// object. Iterative, so deep nesting cannot overflow the fuzzer's own stack.
bool SplitMembers(std::string_view payload, std::string_view* head, std::vector<Member>* out,
                  std::string_view* tail) {
  const size_t open = payload.find('{');
  if (open == std::string_view::npos) return false;
  *head = payload.substr(0, open + 1);
  size_t depth = 0, start = open + 1;
  bool in_string = false, escaped = false;
  size_t colon = std::string_view::npos;
  for (size_t i = open + 1; i < payload.size(); ++i) {
    const char c = payload[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') ++depth;
    else if ((c == '}' || c == ']') && depth > 0) --depth;
    else if (c == ':' && depth == 0 && colon == std::string_view::npos) colon = i;
    else if ((c == ',' || c == '}') && depth == 0) {
      std::string_view text = payload.substr(start, i - start);
      if (colon != std::string_view::npos) {
        Member m;
        m.text = text;
        m.value = idem::fuzz::Trim(payload.substr(colon + 1, i - colon - 1));
        nlohmann::json key = nlohmann::json::parse(payload.substr(start, colon - start), nullptr, false);
        if (!key.is_string()) return false;
        m.key = key.get<std::string>();
        out->push_back(std::move(m));
      } else if (!idem::fuzz::Trim(text).empty()) {
        return false;
      }
      start = i + 1;
      colon = std::string_view::npos;
      if (c == '}') {
        *tail = payload.substr(i);
        return true;
      }
    }
  }
  return false;
}

bool HasDuplicateKeys(const std::vector<Member>& members) {
  std::set<std::string> seen;
  for (const Member& m : members)
    if (!seen.insert(m.key).second) return true;
  return false;
}

std::string Reversed(std::string_view head, const std::vector<Member>& members, std::string_view tail) {
  std::string out(head);
  for (size_t i = members.size(); i-- > 0;) {
    out += members[i].text;
    if (i > 0) out += ',';
  }
  out += tail;
  return out;
}

// -?[1-9][0-9]* or 0: the literals whose canonical text is themselves.
bool IsPlainInteger(std::string_view v) {
  if (v == "0") return true;
  if (!v.empty() && v[0] == '-') v.remove_prefix(1);
  if (v.empty() || v[0] == '0') return false;
  for (char c : v)
    if (c < '0' || c > '9') return false;
  return true;
}

void CheckSameIdentity(const idem::Result<idem::MessageIdentity>& a, const idem::Result<idem::MessageIdentity>& b,
                       const char* what) {
  Check(a.ok() == b.ok(), what);
  if (a.ok()) {
    Check(a->key == b->key, what);
    Check(a->fingerprint == b->fingerprint, what);
  }
}

void CheckSpec(const std::string& payload, const HandlerSpec& spec) {
  Message m;
  m.id = "m-1";
  m.key = "biz:1";
  m.topic = spec.topic;
  m.payload = payload;
  const Message copy = m;
  auto first = idem::DeriveIdentity(m, spec);
  CheckSameIdentity(first, idem::DeriveIdentity(copy, spec), "equal messages give different identities");
  if (!first.ok()) return;

  Check(idem::ValidateKey(first->key).empty(), "a derived key fails ValidateKey");
  Check(IsHex32(first->fingerprint), "a fingerprint is not 32 lowercase hex digits");
  Check(idem::CheckJsonObject(payload).ok(), "a keyed payload fails CheckJsonObject");

  Message spaced = m;
  spaced.payload = idem::fuzz::WithWhitespace(payload);
  CheckSameIdentity(first, idem::DeriveIdentity(spaced, spec), "whitespace changed the identity");

  std::string_view head, tail;
  std::vector<Member> members;
  const bool split = SplitMembers(payload, &head, &members, &tail);
  Check(split, "cannot split the members of an accepted object");
  if (!HasDuplicateKeys(members)) {
    Message reordered = m;
    reordered.payload = Reversed(head, members, tail);
    CheckSameIdentity(first, idem::DeriveIdentity(reordered, spec), "member order changed the identity");
  }

  if (spec.key.fields.empty()) return;
  auto business = idem::BusinessKeyFromPayload(payload, spec.key.fields);
  Check(business.ok(), "DeriveIdentity keyed a payload BusinessKeyFromPayload refuses");
  Check(first->key == spec.topic + ":" + *business, "the key is not topic:business key");
  if (spec.key.fields.size() == 1 && !HasDuplicateKeys(members)) {
    for (const Member& member : members)
      if (member.key == spec.key.fields[0] && IsPlainInteger(member.value))
        Check(first->key == spec.topic + ":" + std::string(member.value), "an integer id lost digits in the key");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<HandlerSpec> specs = Specs();
  const std::string input(reinterpret_cast<const char*>(data), size);
  for (const HandlerSpec& spec : specs) CheckSpec(input, spec);

  // Arbitrary bytes as a key and as fingerprinted bytes.
  if (idem::ValidateKey(input).empty())
    Check(!input.empty() && input.size() <= idem::kMaxKeyBytes, "ValidateKey accepted an empty or oversized key");
  const std::string fp = idem::Fingerprint(input);
  Check(IsHex32(fp) && fp == idem::Fingerprint(input), "Fingerprint is not stable 32-digit hex");
  return 0;
}
