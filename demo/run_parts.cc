#include "demo/run_parts.h"

#include <map>

#include "idem/fast_filter.h"
#include "demo/idem_consumer.h"
#include "demo/naive_consumer.h"
#include "payments/schema.h"

namespace idem::demo::detail {
namespace {

bool IsMysqlUrl(const std::string& url) { return url.rfind("mysql://", 0) == 0 || url.rfind("mariadb://", 0) == 0; }

// The run's own schema on a shared PostgreSQL database; on MySQL, where a
// schema is a database, the run's own database on the same server.
std::string RunStoreUrl(const RunOptions& o) {
  if (IsMysqlUrl(o.store_url)) {
    const size_t path = o.store_url.find('/', o.store_url.find("://") + 3);
    const size_t query = o.store_url.find('?');
    return o.store_url.substr(0, path == std::string::npos ? o.store_url.size() : path) + "/" + o.schema +
           (query == std::string::npos ? "" : o.store_url.substr(query));
  }
  return o.store_url + (o.store_url.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" +
         o.schema;
}

}  // namespace

Result<std::unique_ptr<Store>> OpenRunStore(const RunOptions& o, Env* env) {
  if (!o.store_url.empty()) return idem::OpenStore(RunStoreUrl(o), env);
  SqliteStoreOptions so;
  so.durable_against_power_loss = false;  // a demo: survive a process crash, skip the fsync per commit
  return OpenSqliteStore(o.dir + "/store.db", so, env);
}

Status PrepareStore(const Workload& w, const RunOptions& o, Env* env) {
  if (!o.store_url.empty()) {
    if (o.schema.empty() || o.schema.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
      return Status::InvalidArgument("run schema '" + o.schema + "' must be a plain lower-case identifier");
    auto admin = idem::OpenStore(o.store_url, env);
    if (!admin.ok()) return admin.status();
    // The name is built by the demo from fixed parts, never from message content.
    IDEM_RETURN_IF_ERROR((*admin)->ExecScript(
        IsMysqlUrl(o.store_url) ? "DROP DATABASE IF EXISTS " + o.schema + "; CREATE DATABASE " + o.schema
                                : "DROP SCHEMA IF EXISTS " + o.schema + " CASCADE; CREATE SCHEMA " + o.schema));
  }
  auto store = OpenRunStore(o, env);
  if (!store.ok()) return store.status();
  IDEM_RETURN_IF_ERROR(payments::CreateSchema(
      **store, o.protection ? payments::SchemaVariant::kGuarded : payments::SchemaVariant::kIncident));
  return payments::SeedData(**store, w.accounts, w.skus, w.orders);
}

Result<std::unique_ptr<Consumer>> MakeConsumer(const RunOptions& o, std::unique_ptr<Broker> queue, size_t index,
                                               const ConsumerParts& p) {
  auto store = OpenRunStore(o, p.env);
  if (!store.ok()) return store.status();
  if (!o.protection)
    return std::unique_ptr<Consumer>(std::make_unique<NaiveConsumer>(std::move(queue), std::move(*store), p.env,
                                                                     p.downstream, index, o.batch_size, p.faults,
                                                                     p.log));
  PipelineOptions po;
  po.consumer_group = "payments";
  po.batch_size = o.batch_size;
  po.max_linger_ms = p.max_linger_ms;
  po.retry = p.retry;
  payments::ServiceOptions so{p.downstream, o.service_log};
  so.downstream_via_outbox = p.downstream_via_outbox;
  std::unique_ptr<FastFilter> filter;
  if (!o.redis_url.empty()) {
    FastFilterUrlOptions fo;
    // A prefix of the run's own: DONE keys of an earlier run with the same ids
    // would otherwise acknowledge this run's first copies against an empty database.
    fo.key_prefix = "idem-demo:" + (o.schema.empty() ? o.dir : o.schema) + ":" + p.run_id + ":";
    auto opened = OpenFastFilter(o.redis_url, fo, p.env);
    if (!opened.ok()) return opened.status();
    filter = std::move(*opened);
  }
  auto c = IdemConsumer::Create(std::move(queue), std::move(*store), std::move(filter), p.env, index, p.faults, p.log,
                                po, so);
  if (!c.ok()) return c.status();
  return std::unique_ptr<Consumer>(std::move(*c));
}

std::string NewRunId(Env* wall) { return std::to_string(wall->Random64() % 1'000'000'000'000ULL); }

Message PublicationMessage(const Workload& w, const Publication& p) {
  const BusinessEvent& e = w.events[p.event];
  Message m;
  m.id = p.message_id;
  m.topic = e.topic;
  m.payload = e.payload;
  return m;
}

int64_t DuplicateDeliveries(const Workload& w, const DeliveryLog& log) {
  std::map<std::string, size_t> event_of;
  for (const Publication& p : w.publications) event_of[p.message_id] = p.event;
  std::map<std::pair<size_t, int>, int64_t> per_attempt;
  for (const Delivery& d : log.deliveries()) per_attempt[{event_of[d.message_id], d.attempt}]++;
  int64_t dup = 0;
  for (const auto& [k, n] : per_attempt) dup += n - 1;
  return dup;
}

Status MeasureInto(const Workload& w, const RunOptions& o, Env* env, Broker& queue, RunReport* report) {
  auto store = OpenRunStore(o, env);
  if (!store.ok()) return store.status();
  auto damage = Measure(**store, queue, w);
  if (!damage.ok()) return damage.status();
  report->damage = *damage;
  if (!w.incident_payment_id.empty()) {
    auto times = ChargeTimes(**store, w.incident_payment_id);
    if (!times.ok()) return times.status();
    report->incident_charge_times_ms = std::move(*times);
  }
  return Status::OK();
}

}  // namespace idem::demo::detail
