#!/usr/bin/env bash
# Builds idem and runs `idem bench` from the repository root, so the report lands
# in bench/results/ (REPORT.md and throughput_vs_batch.png). Extra arguments go
# to `idem bench`: --quick (under a minute), --json, --store-url, --redis-url, …
# Run it on a quiet machine: other work running changes the absolute numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
exec ./build/apps/idem/idem bench "$@"
