#include "payments/handler_util.h"

namespace idem::payments::detail {

Result<std::optional<OrderRow>> ReadOrder(SqlTx& tx, const std::string& order_no) {
  auto rows = tx.Query("SELECT user_id, sku, status, quantity, amount_cents FROM pay_orders WHERE order_no = ?",
                       {order_no});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return std::optional<OrderRow>();
  const Row& r = (*rows)[0];
  return std::optional<OrderRow>(OrderRow{AsText(r[0]), AsText(r[1]), AsText(r[2]), AsInt(r[3]), AsInt(r[4])});
}

std::vector<Column> PayFlowRow(const PaySuccess& ev, int64_t now_ms) {
  return {{"biz_no", ev.payment_id},
          {"type", kFlowPay},
          {"user_id", ev.user_id},
          {"amount_cents", -ev.amount_cents},
          {"created_at_ms", now_ms}};
}

std::vector<Column> PointsRow(const PaySuccess& ev, int64_t now_ms) {
  return {{"payment_id", ev.payment_id},
          {"scene", kScenePay},
          {"user_id", ev.user_id},
          {"points", ev.amount_cents / 100},
          {"created_at_ms", now_ms}};
}

std::vector<Column> NoticeRow(const Notice& notice, int64_t now_ms) {
  return {{"event_key", notice.event_key},
          {"idempotency_key", notice.idempotency_key},
          {"order_no", notice.order_no},
          {"kind", notice.kind},
          {"created_at_ms", now_ms}};
}

Notice PaySuccessNotice(const PaySuccess& ev, std::string idempotency_key) {
  return {std::move(idempotency_key), NoticeKey("PAY_SUCCESS", ev.payment_id), ev.user_id, ev.order_no,
          "PAY_SUCCESS"};
}

HandlerResult Charged(const PaySuccess& ev) {
  return HandlerResult::Ok("charged " + std::to_string(ev.amount_cents) + " cents to " + ev.user_id);
}

void Log(const ServiceOptions& options, const std::string& line) {
  if (options.log) options.log(line);
}

HandlerResult NotApplied(const TransitionResult& r, std::string_view target, const std::string& order_no,
                         const ServiceOptions& options) {
  const std::string what = "order " + order_no + " " + r.Describe(target);
  using O = TransitionResult::Outcome;
  switch (r.outcome) {
    case O::kAlreadyInTarget:
    case O::kStale:
      // Acknowledged without effect: an error here would make the broker redeliver forever.
      Log(options, what + " (acknowledged, nothing applied)");
      return HandlerResult::Ok(r.Describe(target) + " (ignored)");
    case O::kTooEarly:
      return HandlerResult::Retryable(what + " (retried: the earlier event is on its way)");
    case O::kIllegal:
      Log(options, what + " (parked for a person)");
      return HandlerResult::Permanent("illegal transition: " + what);
    case O::kNotFound:
      return HandlerResult::Permanent("no order " + order_no);
    case O::kApplied:
      break;
  }
  return HandlerResult::Ok();
}

std::optional<HandlerResult> NoticeOnce(HandlerContext& ctx, const ServiceOptions& options, Notice notice) {
  notice.idempotency_key = ctx.idempotency_key;
  auto ins = InsertOnce(ctx.tx, "pay_notifications", NoticeRow(notice, ctx.env.NowMs()));
  if (!ins.ok()) return HandlerResult::FromStatus(ins.status(), "record notice");
  if (*ins == InsertOutcome::kAlreadyApplied) return std::nullopt;  // sent before: at most once per event
  Status s = options.downstream->SendNotice(notice);
  if (!s.ok()) return HandlerResult::FromStatus(s, "send notice " + notice.event_key);
  return std::nullopt;
}

}  // namespace idem::payments::detail
