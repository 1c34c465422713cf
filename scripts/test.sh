#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds, starts the test servers
# on 127.0.0.1 (private ports and folders), runs ctest, stops the servers.
# Extra arguments go to ctest, e.g.  scripts/test.sh -L unit
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh

servers=()
# Absolute paths: the EXIT trap runs after the cd into build below.
for s in "$PWD"/scripts/servers/*.sh; do [ -e "$s" ] && servers+=("$s"); done
stop_servers() { for s in "${servers[@]}"; do "$s" stop || true; done; }
trap stop_servers EXIT
for s in "${servers[@]}"; do "$s" start; done
[ -f build/test-servers.env ] && set -a && . build/test-servers.env && set +a

cd build
ctest --output-on-failure -j "$(nproc)" --timeout 600 "$@"
