#include "payments/order_states.h"

#include <stdexcept>

namespace idem::payments {

const StateMachine& OrderStates() {
  static const StateMachine* machine = [] {
    auto sm = StateMachine::Create({"pay_orders", "order_no", "status", "version",
                                    {{kWaitPay, kPaid}, {kPaid, kShipped}, {kShipped, kFinished}, {kPaid, kRefunded}}});
    // The spec is a constant of this file; failing here is a programming error.
    if (!sm.ok()) throw std::logic_error("order state machine: " + sm.status().ToString());
    return new StateMachine(std::move(*sm));
  }();
  return *machine;
}

}  // namespace idem::payments
