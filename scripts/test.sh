#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds, starts the test servers
# on 127.0.0.1 (private ports and folders), runs ctest, stops the servers. Then,
# as CI runs it, two more stages; any failure in any stage fails the run:
#   - the unit, integration and sim slices again, built with AddressSanitizer and
#     UndefinedBehaviorSanitizer in ./build-asan (any report fails the test);
#   - each fuzz target for IDEM_FUZZ_SECONDS (default 20) after replaying its
#     committed seeds (scripts/fuzz.sh, ./build-fuzz).
#
#   scripts/test.sh                  everything (what .ci/run does)
#   scripts/test.sh -L unit          arguments go to ctest; then only that run, no extra stages
#   scripts/test.sh --fast           the normal suite only (same as IDEM_SKIP_SANITIZERS=1)
set -euo pipefail
cd "$(dirname "$0")/.."

extra_stages=1
if [ "${1:-}" = "--fast" ]; then
  extra_stages=0
  shift
fi
[ $# -gt 0 ] && extra_stages=0
[ "${IDEM_SKIP_SANITIZERS:-0}" = "1" ] && extra_stages=0

./scripts/build.sh

servers=()
# Absolute paths: the EXIT trap runs after the cds below.
for s in "$PWD"/scripts/servers/*.sh; do [ -e "$s" ] && servers+=("$s"); done
stop_servers() { for s in "${servers[@]}"; do "$s" stop || true; done; }
trap stop_servers EXIT
for s in "${servers[@]}"; do "$s" start; done
[ -f build/test-servers.env ] && set -a && . build/test-servers.env && set +a

(cd build && ctest --output-on-failure -j "$(nproc)" --timeout 600 "$@")
[ "$extra_stages" = "1" ] || exit 0

stage() { echo "== $* ($(date +%T))"; }

stage "AddressSanitizer + UndefinedBehaviorSanitizer: unit, integration, sim (build-asan)"
if [ ! -f build-asan/build.ninja ]; then
  # -O1 -g1 (line tables for the reports) compiles in half the time of -O2 -g.
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIDEM_SANITIZE=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" >/dev/null
fi
# Only the test programs whose tests this stage runs (and what they run, the
# idem CLI), read from the normal build's test list: a program whose tests
# carry none of these labels (the benchmarks', Kafka's, the console's, the
# outbox chains') would only cost build time.
asan_labels='unit|integration|sim'
mapfile -t asan_targets < <( (cd build && ctest -N -L "$asan_labels" -LE install --show-only=json-v1) |
  grep -A2 '"command" : *$' | grep -oE '"/[^"]*"' | tr -d '"' | sed 's#.*/##' | grep -xE 'idem_[a-z0-9_]*tests' | sort -u)
cmake --build build-asan -j "$(nproc)" --target idem "${asan_targets[@]}" | grep -vE '^\[[0-9]+/[0-9]+\] ' || true
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The install tests build a consumer against the installed package with plain
# flags, which cannot link sanitized libraries; they run in the normal stage.
(cd build-asan && ctest --output-on-failure -j "$(nproc)" --timeout 1200 -L "$asan_labels" -LE install)

stage "fuzz targets, ${IDEM_FUZZ_SECONDS:-20} s each (build-fuzz)"
./scripts/fuzz.sh "${IDEM_FUZZ_SECONDS:-20}"
stage "done"
