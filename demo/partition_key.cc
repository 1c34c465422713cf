#include "demo/partition_key.h"

#include <nlohmann/json.hpp>

namespace idem::demo {

std::string KafkaPartitionKey(const std::string& payload, const std::map<std::string, std::string>& account_of_order) {
  auto doc = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return "";
  auto topup = doc.find("topup_id");
  if (topup != doc.end() && topup->is_string()) return topup->get<std::string>();
  auto user = doc.find("user_id");
  if (user != doc.end() && user->is_string()) return user->get<std::string>();
  auto order = doc.find("order_no");
  if (order == doc.end() || !order->is_string()) return "";
  auto account = account_of_order.find(order->get<std::string>());
  return account != account_of_order.end() ? account->second : order->get<std::string>();
}

std::map<std::string, std::string> AccountOfOrder(const Workload& w) {
  std::map<std::string, std::string> out;
  for (const payments::OrderSeed& order : w.orders) out[order.order_no] = order.user_id;
  return out;
}

}  // namespace idem::demo
