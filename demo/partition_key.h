// The Kafka record key a payments producer gives each event, so the events
// whose order matters share a partition and stay in publishing order.
#pragma once

#include <map>
#include <string>

#include "demo/workload.h"

namespace idem::demo {

// The account, not the order: an account's balance is what charges and
// refunds contend for, so a later charge must not overtake an earlier one and
// take the top-up that was meant for it; and since an order belongs to one
// account, its events stay in order too. (A very busy account then loads one
// partition: the price of ordering per account.) Shipments and finishes carry
// only the order number, so their account comes from `account_of_order`.
// A top-up is keyed by its own id: a charge retried in order holds its
// account's later events, and the top-up it waits for must not be one of them
// (credits commute, so their order does not matter). The handlers take their
// idempotency keys from payload fields, so this key only places the record.
// "" for a payload that names none of these.
std::string KafkaPartitionKey(const std::string& payload, const std::map<std::string, std::string>& account_of_order);

// order number → account, from the workload's seeded orders.
std::map<std::string, std::string> AccountOfOrder(const Workload& w);

}  // namespace idem::demo
