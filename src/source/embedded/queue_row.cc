#include "source/embedded/queue_row.h"

#include <nlohmann/json.hpp>

namespace idem::embedded {

using nlohmann::json;

std::string HeadersToJson(const std::map<std::string, std::string>& headers) {
  json j = json::object();
  for (const auto& [k, v] : headers) j[k] = v;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::map<std::string, std::string> HeadersFromJson(const std::string& text) {
  std::map<std::string, std::string> out;
  json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it)
    out[it.key()] = it->is_string() ? it->get<std::string>() : it->dump();
  return out;
}

Message MessageFromRow(const Row& row) {
  Message m;
  m.id = AsText(row[1]);
  m.topic = AsText(row[2]);
  m.key = AsText(row[3]);
  m.headers = HeadersFromJson(AsText(row[4]));
  m.payload = AsText(row[5]);
  m.delivery_count = static_cast<int>(AsInt(row[6]));
  m.redelivered = m.delivery_count > 1;
  m.published_at_ms = AsInt(row[8]);
  return m;
}

}  // namespace idem::embedded
