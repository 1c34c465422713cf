#include "sim/outbox_chain_relay.h"

namespace idem::sim {

const char* RelayFaultName(RelayFault f) {
  switch (f) {
    case RelayFault::kCrashInClaim: return "relay_crash_in_claim";
    case RelayFault::kCrashBeforePublish: return "relay_crash_before_publish";
    case RelayFault::kCrashMidPublish: return "relay_crash_mid_publish";
    case RelayFault::kCrashAfterConfirm: return "relay_crash_after_confirm_before_mark";
    case RelayFault::kPublishRefused: return "relay_publish_refused";
    case RelayFault::kSlowPublish: return "relay_publish_beyond_claim";
    case RelayFault::kCount: break;
  }
  return "unknown";
}

RelayDice::RelayDice(SimEnv* env) : env_(env) {
  // Per relay step (the first) or per published batch (the others).
  static constexpr double kCap[kRelayFaultCount] = {0.03, 0.05, 0.05, 0.1, 0.05, 0.03};
  // A fork: the relay's rates leave the draws of everything else in the seed alone.
  SimEnv rates = env->Fork(0x6f7574626f78);  // "outbox"
  for (int i = 0; i < kRelayFaultCount; ++i) p_[i] = rates.Chance(0.5) ? rates.Uniform() * kCap[i] : 0.0;
}

bool RelayDice::Roll(RelayFault f) {
  const int i = static_cast<int>(f);
  if (!enabled_ || !env_->Chance(p_[i])) return false;
  fired_[i]++;
  return true;
}

namespace {

Status RelayDied(const char* where) {
  return Status::Unavailable(std::string("simulated crash: the relay died ") + where);
}

}  // namespace

// Publishes into the SimBroker; the relay's crash points between publish and mark fire here.
class SimRelay::Publisher final : public idem::Publisher {
 public:
  Publisher(SimRelay* relay, Incarnation* life) : relay_(relay), life_(life) {}

  Status PublishBatch(std::vector<Message>& messages, int64_t delay_ms) override {
    const SimRelayWorld& w = relay_->world_;
    RelayDice& dice = *w.relay_dice;
    SimEnv& env = w.dice->env();
    if (life_->crashed) return RelayDied("earlier");
    if (dice.Roll(RelayFault::kCrashBeforePublish)) {
      life_->crashed = true;
      return RelayDied("after its claim, before publishing");
    }
    if (dice.Roll(RelayFault::kSlowPublish)) {
      // A stalled connection: the claim expires while this relay still holds the batch.
      env.Advance(relay_->options_.claim_ms + env.Range(1, relay_->options_.claim_ms));
      if (relay_->meanwhile_) relay_->meanwhile_();
    }
    const bool dies = dice.Roll(RelayFault::kCrashMidPublish);
    const bool refused = !dies && dice.Roll(RelayFault::kPublishRefused);
    size_t n = messages.size();
    if (dies || refused) n = static_cast<size_t>(env.Range(0, static_cast<int64_t>(messages.size()) - 1));
    const bool dies_after = !dies && !refused && dice.Roll(RelayFault::kCrashAfterConfirm);
    // The broken relay marks first and publishes after: when it dies in between,
    // the rows are SENT and the broker never saw them.
    const bool lose = dies_after && w.marks_before_publishing;
    for (size_t i = 0; i < n && !lose; ++i) w.broker->Publish(messages[i], delay_ms);
    if (dies) {
      life_->crashed = true;
      return RelayDied("in the middle of publishing a batch");
    }
    if (refused) return Status::Unavailable("simulated: the broker refused the batch (nack)");
    if (lose) {
      relay_->die_after_step_ = true;  // after its mark, before its publish
      return Status::OK();
    }
    if (dies_after) {
      life_->crashed = true;
      return RelayDied("after the broker confirmed the batch, before marking it sent");
    }
    return Status::OK();
  }

 private:
  SimRelay* relay_;
  Incarnation* life_;
};

SimRelay::SimRelay(const SimRelayWorld& world, outbox::RelayOptions options) : world_(world), options_(options) {
  Start();
}

SimRelay::~SimRelay() = default;

void SimRelay::Start() {
  relay_.reset();  // the old process's memory is gone
  life_ = std::make_unique<Incarnation>();
  store_ = std::make_unique<FaultyStore>(world_.db, world_.dice, life_.get(), world_.db_down_until_ms);
  publisher_ = std::make_unique<Publisher>(this, life_.get());
  relay_ = std::make_unique<outbox::Relay>(*store_, *publisher_, options_);
}

int64_t SimRelay::Step() {
  busy_ = true;
  // The first statement of a step is the claim's SELECT.
  if (world_.relay_dice->Roll(RelayFault::kCrashInClaim)) life_->planned = CrashPoint::kInTransaction;
  auto step = relay_->RelayOnce(world_.dice->env().NowMs());
  life_->planned = CrashPoint::kNone;
  busy_ = false;
  if (life_->crashed || die_after_step_) {
    die_after_step_ = false;
    crashes_++;
    Start();
  }
  return step.ok() ? step->claimed : 0;
}

outbox::RelayOptions SimRelayOptions(SimEnv& env) {
  outbox::RelayOptions o;
  o.batch_size = env.Range(1, 16);
  o.claim_ms = env.Range(1'000, 30'000);
  o.backoff_initial_ms = env.Range(100, 2'000);
  o.backoff_max_ms = o.backoff_initial_ms * 16;
  o.max_attempts = 12;
  o.sent_retention_ms = env.Range(0, 60'000);
  o.cleanup_batch = env.Range(1, 50);
  return o;
}

std::optional<int64_t> NextOutboxDueMs(Store& db) {
  auto tx = db.Begin();
  if (!tx.ok()) return std::nullopt;
  auto rows = (*tx)->Query("SELECT MIN(due_ms) FROM idem_outbox WHERE state = 'PENDING'", {});
  (*tx)->Rollback();
  if (!rows.ok() || rows->empty() || IsNull((*rows)[0][0])) return std::nullopt;
  return AsInt((*rows)[0][0]);
}

}  // namespace idem::sim
