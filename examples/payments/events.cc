#include "payments/events.h"

#include <nlohmann/json.hpp>

namespace idem::payments {
namespace {

using nlohmann::json;

// Hands out the fields of a parsed payload, remembering the first problem.
class Fields {
 public:
  explicit Fields(const Payload& payload) : payload_(payload) {}
  std::string Text(const char* name) {
    auto v = payload_.String(name);
    if (!v.ok() || v->empty()) {
      Fail(std::string("field '") + name + "' must be a non-empty string");
      return {};
    }
    return *v;
  }
  int64_t Positive(const char* name) {
    auto v = payload_.Int(name);
    if (!v.ok() || *v <= 0) {
      Fail(std::string("field '") + name + "' must be a positive integer");
      return 0;
    }
    return *v;
  }
  Status status() const {
    return error_.empty() ? Status::OK() : Status::InvalidArgument("bad payload: " + error_);
  }

 private:
  void Fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
  }
  const Payload& payload_;
  std::string error_;
};

// The same event read from raw bytes (the naive consumer, tools).
template <typename Parse>
auto FromBytes(std::string_view bytes, Parse parse) -> decltype(parse(Payload())) {
  auto p = Payload::Parse(bytes);
  if (!p.ok()) return Status::InvalidArgument("bad payload: " + p.status().message());
  return parse(*p);
}

template <typename T>
Result<T> Done(Fields& f, T value) {
  if (!f.status().ok()) return f.status();
  return value;
}

}  // namespace

std::string ToPayload(const PaySuccess& e) {
  return json{{"payment_id", e.payment_id}, {"order_no", e.order_no}, {"user_id", e.user_id},
              {"amount_cents", e.amount_cents}}
      .dump();
}
std::string ToPayload(const Refund& e) {
  return json{{"refund_id", e.refund_id}, {"payment_id", e.payment_id}, {"order_no", e.order_no},
              {"user_id", e.user_id}, {"amount_cents", e.amount_cents}}
      .dump();
}
std::string ToPayload(const Ship& e) {
  return json{{"order_no", e.order_no}, {"sku", e.sku}, {"quantity", e.quantity}}.dump();
}
std::string ToPayload(const Finish& e) { return json{{"order_no", e.order_no}}.dump(); }
std::string ToPayload(const TopUp& e) {
  return json{{"topup_id", e.topup_id}, {"user_id", e.user_id}, {"amount_cents", e.amount_cents}}.dump();
}
std::string ToPayload(const PointsGrant& e) {
  return json{{"payment_id", e.payment_id}, {"scene", e.scene}, {"user_id", e.user_id}, {"points", e.points}}
      .dump();
}
std::string ToPayload(const NoticeEvent& e) {
  return json{{"event_key", e.event_key}, {"user_id", e.user_id}, {"order_no", e.order_no}, {"kind", e.kind}}.dump();
}

Result<PaySuccess> ParsePaySuccess(const Payload& payload) {
  Fields f(payload);
  PaySuccess e{f.Text("payment_id"), f.Text("order_no"), f.Text("user_id"), f.Positive("amount_cents")};
  return Done(f, std::move(e));
}
Result<Refund> ParseRefund(const Payload& payload) {
  Fields f(payload);
  Refund e{f.Text("refund_id"), f.Text("payment_id"), f.Text("order_no"), f.Text("user_id"),
           f.Positive("amount_cents")};
  return Done(f, std::move(e));
}
Result<Ship> ParseShip(const Payload& payload) {
  Fields f(payload);
  Ship e{f.Text("order_no"), f.Text("sku"), f.Positive("quantity")};
  return Done(f, std::move(e));
}
Result<Finish> ParseFinish(const Payload& payload) {
  Fields f(payload);
  Finish e{f.Text("order_no")};
  return Done(f, std::move(e));
}
Result<TopUp> ParseTopUp(const Payload& payload) {
  Fields f(payload);
  TopUp e{f.Text("topup_id"), f.Text("user_id"), f.Positive("amount_cents")};
  return Done(f, std::move(e));
}
Result<PointsGrant> ParsePointsGrant(const Payload& payload) {
  Fields f(payload);
  PointsGrant e{f.Text("payment_id"), f.Text("scene"), f.Text("user_id"), f.Positive("points")};
  return Done(f, std::move(e));
}

Result<NoticeEvent> ParseNotice(const Payload& payload) {
  Fields f(payload);
  NoticeEvent e{f.Text("event_key"), f.Text("user_id"), f.Text("order_no"), f.Text("kind")};
  return Done(f, std::move(e));
}

Result<PaySuccess> ParsePaySuccess(std::string_view bytes) {
  return FromBytes(bytes, [](const Payload& p) { return ParsePaySuccess(p); });
}
Result<Refund> ParseRefund(std::string_view bytes) {
  return FromBytes(bytes, [](const Payload& p) { return ParseRefund(p); });
}
Result<Ship> ParseShip(std::string_view bytes) {
  return FromBytes(bytes, [](const Payload& p) { return ParseShip(p); });
}
Result<Finish> ParseFinish(std::string_view bytes) {
  return FromBytes(bytes, [](const Payload& p) { return ParseFinish(p); });
}
Result<TopUp> ParseTopUp(std::string_view bytes) {
  return FromBytes(bytes, [](const Payload& p) { return ParseTopUp(p); });
}
Result<PointsGrant> ParsePointsGrant(std::string_view bytes) {
  return FromBytes(bytes, [](const Payload& p) { return ParsePointsGrant(p); });
}

std::string NoticeKey(std::string_view kind, std::string_view business_id) {
  return std::string(kind) + ":" + std::string(business_id);
}

}  // namespace idem::payments
