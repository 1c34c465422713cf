// order.ship: stock leaves the warehouse once per order. The stock row has no
// natural state machine, so it is updated optimistically by version.
#include "payments/events.h"
#include "payments/handler_util.h"
#include "payments/order_states.h"

namespace idem::payments {

using namespace detail;

namespace {

const VersionedTable kStock{"pay_stock", "sku", "version"};
constexpr int kVersionTries = 3;

// Decrements the stock of `sku` by `quantity`; nullopt on success.
std::optional<HandlerResult> TakeStock(SqlTx& tx, const std::string& sku, int64_t quantity) {
  for (int t = 0; t < kVersionTries; ++t) {
    auto rows = tx.Query("SELECT quantity, version FROM pay_stock WHERE sku = ?", {sku});
    if (!rows.ok()) return HandlerResult::FromStatus(rows.status(), "read stock");
    if (rows->empty()) return HandlerResult::Permanent("no stock row for sku " + sku);
    const int64_t have = AsInt((*rows)[0][0]), version = AsInt((*rows)[0][1]);
    if (have < quantity)
      return HandlerResult::Retryable("out of stock: sku " + sku + " has " + std::to_string(have) + ", needs " +
                                      std::to_string(quantity));
    auto upd = UpdateIfVersion(tx, kStock, sku, version, {{"quantity", have - quantity}});
    if (!upd.ok()) return HandlerResult::FromStatus(upd.status(), "update stock");
    if (*upd == VersionedUpdate::kApplied) return std::nullopt;
    // kVersionMoved: another writer got there first; read again and recompute.
  }
  return HandlerResult::Retryable("stock row of sku " + sku + " kept changing; try again later");
}

}  // namespace

HandlerSpec ShipHandler(const ServiceOptions& options) {
  HandlerSpec spec;
  spec.topic = kTopicShip;
  spec.key.fields = {"order_no"};  // prefix "order.ship": shipping and finishing an order never share a key
  spec.fn = [options](HandlerContext& ctx) -> HandlerResult {
    auto ev = ParseShip(ctx.payload);
    if (!ev.ok()) return HandlerResult::Permanent(ev.status().message());
    auto order = ReadOrder(ctx.tx, ev->order_no);
    if (!order.ok()) return HandlerResult::FromStatus(order.status(), "read order");
    if (!order->has_value()) return HandlerResult::Permanent("no order " + ev->order_no);
    if ((*order)->sku != ev->sku || (*order)->quantity != ev->quantity)
      return HandlerResult::Permanent("shipment does not match order " + ev->order_no + " (sku or quantity differs)");
    const int64_t now = ctx.env.NowMs();

    auto moved = OrderStates().Move(ctx.tx, ev->order_no, kShipped, {{"updated_at_ms", now}});
    if (!moved.ok()) return HandlerResult::FromStatus(moved.status(), "mark order shipped");
    if (!moved->applied()) return NotApplied(*moved, kShipped, ev->order_no, options);

    auto move = InsertOnce(ctx.tx, "pay_stock_moves",
                           {{"order_no", ev->order_no}, {"sku", ev->sku}, {"quantity", ev->quantity}, {"created_at_ms", now}});
    if (!move.ok()) return HandlerResult::FromStatus(move.status(), "record stock move");
    if (*move == InsertOutcome::kAlreadyApplied) return HandlerResult::Ok("stock already taken for " + ev->order_no);
    if (auto failed = TakeStock(ctx.tx, ev->sku, ev->quantity)) return *failed;

    if (auto failed = NoticeOnce(ctx, options,
                                 {"", NoticeKey("SHIPPED", ev->order_no), (*order)->user_id, ev->order_no, "SHIPPED"}))
      return *failed;
    return HandlerResult::Ok("shipped " + std::to_string(ev->quantity) + " x " + ev->sku);
  };
  return spec;
}

}  // namespace idem::payments
