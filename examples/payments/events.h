// The business events of the payments service: one topic per action
// (so pay and refund never share a key), JSON payloads, money as integer cents. The idempotency key of each
// topic comes from the business identity named here, never from
// the broker's message id.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "idem/payload.h"
#include "idem/status.h"

namespace idem::payments {

// Topic                    key fields            effect
inline constexpr const char* kTopicPaySuccess = "pay.success";   // payment_id         charge, points, notice
inline constexpr const char* kTopicRefund = "pay.refund";        // refund_id          credit, notice
inline constexpr const char* kTopicShip = "order.ship";          // order_no           stock, notice
inline constexpr const char* kTopicFinish = "order.finish";      // order_no           state only
inline constexpr const char* kTopicTopUp = "account.topup";      // topup_id           credit
inline constexpr const char* kTopicPoints = "points.grant";      // payment_id, scene  points
inline constexpr const char* kTopicNotice = "notice.send";       // event_key          notice (from the outbox)

// Ledger flow types; (biz_no, type) is unique in pay_account_flows.
inline constexpr const char* kFlowPay = "PAY_DEDUCT";
inline constexpr const char* kFlowRefund = "REFUND";
inline constexpr const char* kFlowTopUp = "TOPUP";

// The points scene granted with every payment (campaigns use their own scenes).
inline constexpr const char* kScenePay = "PAY";

struct PaySuccess {
  std::string payment_id, order_no, user_id;
  int64_t amount_cents = 0;
};
struct Refund {
  std::string refund_id, payment_id, order_no, user_id;
  int64_t amount_cents = 0;
};
struct Ship {
  std::string order_no, sku;
  int64_t quantity = 0;
};
struct Finish {
  std::string order_no;
};
struct TopUp {
  std::string topup_id, user_id;
  int64_t amount_cents = 0;
};
struct PointsGrant {
  std::string payment_id, scene, user_id;
  int64_t points = 0;
};
// A notice to send, emitted through the outbox (ServiceOptions::downstream_via_outbox).
struct NoticeEvent {
  std::string event_key, user_id, order_no, kind;  // event_key: NoticeKey(kind, business id)
};

std::string ToPayload(const PaySuccess& e);
std::string ToPayload(const Refund& e);
std::string ToPayload(const Ship& e);
std::string ToPayload(const Finish& e);
std::string ToPayload(const TopUp& e);
std::string ToPayload(const PointsGrant& e);
std::string ToPayload(const NoticeEvent& e);

// A payload that does not parse, lacks a field or has a non-positive amount is
// a permanent InvalidArgument: retrying cannot fix it.
// From the payload the pipeline parsed (HandlerContext::payload), or from raw bytes.
Result<PaySuccess> ParsePaySuccess(const Payload& payload);
Result<Refund> ParseRefund(const Payload& payload);
Result<Ship> ParseShip(const Payload& payload);
Result<Finish> ParseFinish(const Payload& payload);
Result<TopUp> ParseTopUp(const Payload& payload);
Result<PointsGrant> ParsePointsGrant(const Payload& payload);
Result<NoticeEvent> ParseNotice(const Payload& payload);
Result<PaySuccess> ParsePaySuccess(std::string_view payload);
Result<Refund> ParseRefund(std::string_view payload);
Result<Ship> ParseShip(std::string_view payload);
Result<Finish> ParseFinish(std::string_view payload);
Result<TopUp> ParseTopUp(std::string_view payload);
Result<PointsGrant> ParsePointsGrant(std::string_view payload);

// The key of a notice in pay_notifications: one notice per business event,
// e.g. "PAY_SUCCESS:PAY000001". Both consumers compute it the same way.
std::string NoticeKey(std::string_view kind, std::string_view business_id);

}  // namespace idem::payments
