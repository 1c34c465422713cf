#!/usr/bin/env bash
# Builds idem and runs `idem bench` from the repository root, so the report lands
# in bench/results/ (REPORT.md and throughput_vs_batch.png). Extra arguments go
# to `idem bench`: --quick (under a minute), --json, --store, --redis-url, …
# Run it on a quiet machine: other work running changes the absolute numbers.
# The committed report's command (about 21 minutes on 2 cores), its servers on
# 127.0.0.1, PostgreSQL and MariaDB flushing every commit:
#   IDEM_TEST_POSTGRES_FSYNC=on scripts/servers/postgres.sh start
#   IDEM_TEST_MYSQL_FSYNC=on scripts/servers/mariadb.sh start
#   scripts/servers/redis.sh start; scripts/servers/rabbitmq.sh start
#   set -a; . build/test-servers.env; set +a
#   scripts/bench.sh --store "$IDEM_TEST_POSTGRES_URL" --store "$IDEM_TEST_MYSQL_URL" \
#     --redis-url "$IDEM_TEST_REDIS_URL" --rabbitmq-url "$IDEM_TEST_AMQP_URL" --kafka-url kafka://mock/pay.success
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
exec ./build/apps/idem/idem bench "$@"
