#include "testing/portable_pay.h"

#include <algorithm>

namespace idem::testing {

std::vector<Message> PaymentCopies(int payments, int copies, int chunk, int64_t* total) {
  std::vector<Message> out;
  for (int begin = 0; begin < payments; begin += chunk)
    for (int copy = 0; copy < copies; ++copy)
      for (int i = begin; i < std::min(begin + chunk, payments); ++i) {
        Message m;
        m.id = "P" + std::to_string(i) + "-copy" + std::to_string(copy);
        m.topic = "pay";
        m.payload = R"({"payment_id":"P)" + std::to_string(i) + R"(","amount":)" + std::to_string(i + 1) + "}";
        out.push_back(std::move(m));
        if (copy == 0) *total += i + 1;
      }
  return out;
}

}  // namespace idem::testing
