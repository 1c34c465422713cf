// Pieces the payments handlers share: classification of failures, reading an
// order, the state-machine outcomes, and the once-per-event notice.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "idem/guards.h"
#include "idem/handler.h"
#include "payments/downstream.h"
#include "payments/events.h"
#include "payments/handlers.h"

namespace idem::payments::detail {

inline const BalanceColumn kAccountBalance{"pay_accounts", "user_id", "balance_cents"};

struct OrderRow {
  std::string user_id, sku, status;
  int64_t quantity = 0;
  int64_t amount_cents = 0;
};
Result<std::optional<OrderRow>> ReadOrder(SqlTx& tx, const std::string& order_no);

// The rows pay.success writes: the ledger's PAY_DEDUCT row, the points grant and
// the notice record. The one-message handler and its set form write the same
// columns from here.
std::vector<Column> PayFlowRow(const PaySuccess& ev, int64_t now_ms);
std::vector<Column> PointsRow(const PaySuccess& ev, int64_t now_ms);
std::vector<Column> NoticeRow(const Notice& notice, int64_t now_ms);

// The notice of a charged payment, and the summary its record keeps: the same
// for the one-message handler and its set form.
Notice PaySuccessNotice(const PaySuccess& ev, std::string idempotency_key);
HandlerResult Charged(const PaySuccess& ev);

// What a transition that did not apply means for the handler: duplicates and
// stale events are OK (logged), too early is retryable, illegal or missing is permanent.
HandlerResult NotApplied(const TransitionResult& r, std::string_view target, const std::string& order_no,
                         const ServiceOptions& options);

// Records the notice once per event (pay_notifications) and sends it with the
// idempotency key. Returns a failure to hand back, or nullopt when done. A send
// that throws propagates: the whole handler runs again later.
std::optional<HandlerResult> NoticeOnce(HandlerContext& ctx, const ServiceOptions& options, Notice notice);

void Log(const ServiceOptions& options, const std::string& line);

}  // namespace idem::payments::detail
