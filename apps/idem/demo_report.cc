#include "demo_report.h"

#include "cli_util.h"

#include <cstdarg>
#include <cstdio>
#include <sstream>

namespace idem::cli {
namespace {

using nlohmann::json;
using demo::Damage;
using demo::RunReport;

std::string Fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Fmt(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

// The incident happened in UTC+8; its times read best in that zone.
std::string ClockTime(int64_t ms) {
  const int64_t s = (ms / 1000 + 8 * 3600) % 86400;
  return Fmt("%02lld:%02lld:%02lld", static_cast<long long>(s / 3600), static_cast<long long>(s / 60 % 60),
             static_cast<long long>(s % 60));
}

std::string Charges(const std::vector<int64_t>& times) {
  if (times.empty()) return "not charged";
  std::string out = times.size() == 1 ? "charged once, at " : "charged " + std::to_string(times.size()) + " times, at ";
  for (size_t i = 0; i < times.size(); ++i) out += (i ? (i + 1 == times.size() ? " and " : ", ") : "") + ClockTime(times[i]);
  if (times.size() >= 2) out += Fmt(" (%lld s apart)", static_cast<long long>((times[1] - times[0]) / 1000));
  return out;
}

std::string Row(const std::string& scenario, const char* mode, const RunReport& r) {
  const Damage& d = r.damage;
  return Fmt("%-36s %-4s %9lld %9lld %7lld/%-7lld %7lld %8lld %9lld %7lld %9.0f\n", scenario.c_str(), mode,
             static_cast<long long>(r.published), static_cast<long long>(r.duplicate_deliveries),
             static_cast<long long>(d.effects_applied), static_cast<long long>(d.effects_expected),
             static_cast<long long>(d.double_charges), static_cast<long long>(d.wrong_balances),
             static_cast<long long>(d.regressed_states), static_cast<long long>(d.blocked), r.MessagesPerSecond());
}

json RunJson(const RunReport& r) {
  const Damage& d = r.damage;
  json j{{"published", r.published},
              {"deliveries", r.deliveries},
              {"duplicate_deliveries", r.duplicate_deliveries},
              {"effects_applied", d.effects_applied},
              {"effects_expected", d.effects_expected},
              {"double_charges", d.double_charges},
              {"duplicate_effects", d.duplicate_effects},
              {"wrong_balances", d.wrong_balances},
              {"unbalanced_accounts", d.unbalanced_accounts},
              {"regressed_states", d.regressed_states},
              {"wrong_states", d.wrong_states},
              {"wrong_stock", d.wrong_stock},
              {"legitimate_blocked", d.blocked},
              {"parked", d.parked},
              {"parked_as_expected", d.parked_as_expected},
              {"parked_wrongly", d.parked_wrongly},
              {"refusals_missing", d.refusals_missing},
              {"left_in_queue", d.left_in_queue},
              {"ignored_by_state_machine", d.ignored_by_state},
              {"clean", d.Clean()},
              {"bank_calls", r.downstream.debit_calls},
              {"bank_charges", r.downstream.debits_charged},
              {"notice_calls", r.downstream.notice_calls},
              {"notices_delivered", r.downstream.notices_delivered},
              {"simulated_seconds", r.simulated_ms / 1000},
              {"wall_seconds", r.wall_seconds},
              {"busy_seconds", r.busy_seconds},
              {"messages_per_second", r.MessagesPerSecond()},
              {"incident_charge_times_ms", r.incident_charge_times_ms}};
  if (!r.broker_queue.empty()) j["broker_queue"] = RedactUrl(r.broker_queue);
  return j;
}

}  // namespace

bool DemoSummary::IdemClean() const {
  for (const DemoRow& r : rows)
    if (!r.on.damage.Clean()) return false;
  return true;
}

bool DemoSummary::OffShowsDamage() const {
  for (const DemoRow& r : rows)
    if (r.off.damage.double_charges > 0) return true;
  return false;
}

std::string RenderTable(const DemoSummary& s) {
  std::ostringstream out;
  out << "Each scenario ran twice on the same seeded workload (" << s.messages
      << " business messages, seed " << s.seed << "), on " << s.setup << ":\n"
      << "  off   the incident's consumer: AUTO ack, no records, read-modify-write balance, unchecked UPDATE\n"
      << "  idem  the payments service behind idem: records + effects in one transaction, business guards\n"
      << "Effect rows, charges, balances, states and blocked messages were read back from each run's database\n"
      << "and terminal queue afterwards; deliveries were counted as the queue handed them out.\n\n";
  out << Fmt("%-36s %-4s %9s %9s %15s %7s %8s %9s %7s %9s\n", "", "", "published", "duplicate", "effect rows",
             "double", "wrong", "regressed", "legit", "");
  out << Fmt("%-36s %-4s %9s %9s %15s %7s %8s %9s %7s %9s\n", "scenario", "mode", "messages", "delivered",
             "applied/expect", "charges", "balances", "states", "blocked", "msg/s");
  out << std::string(126, '-') << "\n";
  for (const DemoRow& r : s.rows) {
    out << Row(std::string(r.scenario->id) + " " + r.scenario->name, "off", r.off);
    out << Row("", "idem", r.on);
  }
  out << std::string(126, '-') << "\n";
  for (const DemoRow& r : s.rows) {
    if (r.scenario->cause != demo::Cause::kIncident) continue;
    out << "Incident 001 replayed: payment P20260928001, 199.00 for user 10086, published at 10:00:01; the bank\n"
        << "call takes 11 s and the in-app notice after the charge throws once.\n"
        << "  off   " << Charges(r.off.incident_charge_times_ms)
        << ": the requeued message ran the whole listener again\n"
        << "  idem  " << Charges(r.on.incident_charge_times_ms)
        << (r.on.downstream_via_outbox
                ? ": the notice went out through the outbox; its throw retried the notice alone\n"
                : ": the throw rolled the charge back; the retry charged once\n");
  }
  int64_t refused = 0;
  for (const DemoRow& r : s.rows) refused += r.on.damage.parked_as_expected;
  out << "\n";
  if (refused > 0)
    out << "idem refused " << refused
        << " illegal event(s) (a refund after FINISHED) into the terminal queue, each with its reason.\n";
  if (s.IdemClean())
    out << "idem: no double charge, no wrong balance, no regressed state, no legitimate message blocked.\n";
  else
    out << "idem SHOWED DAMAGE in the scenarios above; run with --json and --keep DIR to inspect.\n";
  if (!s.OffShowsDamage()) out << "Note: with this seed and size the naive consumer charged nobody twice.\n";
  if (!s.kept_in.empty()) out << "Databases kept in " << s.kept_in << " (one folder per scenario and mode).\n";
  bool header = false;
  for (const DemoRow& r : s.rows) {
    if (r.on.damage.parked == 0 || r.on.broker_queue.empty()) continue;
    if (!header) out << "What idem parked stays in each run's terminal queue on the broker:\n";
    header = true;
    // The console needs only the queue; prefetch and wait queues are the run's own business.
    std::string url = RedactUrl(r.on.broker_queue);
    url = url.substr(0, url.find("&prefetch="));
    out << "  " << r.scenario->id << "  idem dlq list --broker '" << url << "'\n";
  }
  return out.str();
}

json RenderJson(const DemoSummary& s) {
  json rows = json::array();
  for (const DemoRow& r : s.rows)
    rows.push_back({{"id", r.scenario->id},
                    {"name", r.scenario->name},
                    {"story", r.scenario->story},
                    {"off", RunJson(r.off)},
                    {"on", RunJson(r.on)}});
  return json{{"seed", s.seed},
              {"messages", s.messages},
              {"setup", s.setup},
              {"idem_clean", s.IdemClean()},
              {"off_shows_damage", s.OffShowsDamage()},
              {"kept_in", s.kept_in},
              {"scenarios", rows}};
}

}  // namespace idem::cli
