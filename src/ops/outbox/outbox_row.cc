#include "ops/outbox/outbox_row.h"

#include <nlohmann/json.hpp>

namespace idem::outbox {

OutboxRow OutboxRowFrom(const Row& row) {
  return {AsInt(row[0]),  AsText(row[1]), AsText(row[2]),
          AsText(row[3]), AsText(row[4]), AsText(row[5]),
          static_cast<int>(AsInt(row[6]))};
}

Message ToMessage(const OutboxRow& row) {
  Message m;
  m.id = row.message_id;
  m.key = row.key;
  m.topic = row.topic;
  m.payload = row.payload;
  const nlohmann::json headers = nlohmann::json::parse(row.headers_json, nullptr, false);
  if (headers.is_object())
    for (auto it = headers.begin(); it != headers.end(); ++it)
      m.headers[it.key()] = it->is_string() ? it->get<std::string>() : it->dump();
  m.headers[kOutboxIdHeader] = row.message_id;
  return m;
}

}  // namespace idem::outbox
