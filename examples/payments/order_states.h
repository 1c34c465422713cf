// The order lifecycle of the payments service as a declared state machine:
//
//   WAIT_PAY ──▶ PAID ──▶ SHIPPED ──▶ FINISHED
//                  └────▶ REFUNDED
//
// A late PAID after SHIPPED is stale (acked, ignored); SHIPPED while WAIT_PAY is
// too early (retried: the payment event is on its way); SHIPPED after REFUNDED
// is illegal (parked for a person).
#pragma once

#include "idem/guards.h"

namespace idem::payments {

inline constexpr const char* kWaitPay = "WAIT_PAY";
inline constexpr const char* kPaid = "PAID";
inline constexpr const char* kShipped = "SHIPPED";
inline constexpr const char* kFinished = "FINISHED";
inline constexpr const char* kRefunded = "REFUNDED";

// Over pay_orders(order_no, status, version). Built once; immutable.
const StateMachine& OrderStates();

}  // namespace idem::payments
