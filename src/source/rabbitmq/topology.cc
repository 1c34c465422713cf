#include "source/rabbitmq/topology.h"

#include <amqp_framing.h>

#include "source/rabbitmq/field_table.h"

namespace idem::rabbitmq {
namespace {

Status DeclareQueue(AmqpConnection& conn, const std::string& queue, FieldTable& args) {
  amqp_queue_declare(conn.raw(), 1, StringBytes(queue), /*passive=*/0, /*durable=*/1, /*exclusive=*/0,
                     /*auto_delete=*/0, args.table());
  return conn.Check(amqp_get_rpc_reply(conn.raw()), "declaring queue '" + queue + "'");
}

}  // namespace

QueueNames QueueNames::From(const RabbitMqOptions& o) {
  QueueNames n;
  n.main = o.queue;
  n.exchange = o.exchange.empty() ? o.queue : o.exchange;
  n.dead = o.dead_queue.empty() ? o.queue + ".dead" : o.dead_queue;
  n.audit = o.queue + ".audit";
  return n;
}

int64_t HoldStepMs(int64_t delay_ms) {
  for (int64_t decade = 1000;; decade *= 10)
    for (int64_t m : {1, 2, 5})
      if (m * decade >= delay_ms) return m * decade;
}

Status DeclareCore(AmqpConnection& conn, const QueueNames& names) {
  amqp_exchange_declare(conn.raw(), 1, StringBytes(names.exchange), amqp_cstring_bytes("topic"), /*passive=*/0,
                        /*durable=*/1, /*auto_delete=*/0, /*internal=*/0, amqp_empty_table);
  IDEM_RETURN_IF_ERROR(
      conn.Check(amqp_get_rpc_reply(conn.raw()), "declaring exchange '" + names.exchange + "'"));

  FieldTable main_args;
  // Whatever the broker dead-letters from the main queue lands in the terminal
  // queue, never in the void.
  main_args.SetString("x-dead-letter-exchange", "");
  main_args.SetString("x-dead-letter-routing-key", names.dead);
  IDEM_RETURN_IF_ERROR(DeclareQueue(conn, names.main, main_args));

  amqp_queue_bind(conn.raw(), 1, StringBytes(names.main), StringBytes(names.exchange), amqp_cstring_bytes("#"),
                  amqp_empty_table);
  IDEM_RETURN_IF_ERROR(conn.Check(amqp_get_rpc_reply(conn.raw()),
                                  "binding queue '" + names.main + "' to exchange '" + names.exchange + "'"));

  FieldTable no_args;
  return DeclareQueue(conn, names.dead, no_args);
}

Status CheckCoreExists(AmqpConnection& conn, const QueueNames& names) {
  for (const std::string* queue : {&names.main, &names.dead}) {
    amqp_queue_declare(conn.raw(), 1, StringBytes(*queue), /*passive=*/1, 0, 0, 0, amqp_empty_table);
    Status s = conn.Check(amqp_get_rpc_reply(conn.raw()), "looking up queue '" + *queue + "'");
    if (s.IsNotFound())
      return Status::NotFound("RabbitMQ at " + conn.options().host + ":" + std::to_string(conn.options().port) +
                              " vhost '" + conn.options().vhost + "' has no queue '" + *queue +
                              "'; nothing was declared");
    IDEM_RETURN_IF_ERROR(s);
  }
  return Status::OK();
}

Status DeclareDelayQueue(AmqpConnection& conn, const QueueNames& names, const std::string& queue, int64_t ttl_ms) {
  FieldTable args;
  args.SetInt("x-message-ttl", ttl_ms);
  // Expired messages go straight back to the main queue through the default
  // exchange (not through exchange Q, whose other bindings must not see retries).
  args.SetString("x-dead-letter-exchange", "");
  args.SetString("x-dead-letter-routing-key", names.main);
  return DeclareQueue(conn, queue, args);
}

Status DeclareAuditQueue(AmqpConnection& conn, const QueueNames& names) {
  FieldTable no_args;
  return DeclareQueue(conn, names.audit, no_args);
}

Result<int64_t> ReadyCount(AmqpConnection& conn, amqp_channel_t channel, const std::string& queue) {
  amqp_queue_declare_ok_t* ok = amqp_queue_declare(conn.raw(), channel, StringBytes(queue), /*passive=*/1, 0, 0,
                                                   0, amqp_empty_table);
  Status s = conn.Check(amqp_get_rpc_reply(conn.raw()), "inspecting queue '" + queue + "'", channel);
  if (!s.ok()) return s;
  return static_cast<int64_t>(ok->message_count);
}

}  // namespace idem::rabbitmq
