#!/usr/bin/env bash
# Builds the libFuzzer targets (clang++, AddressSanitizer + UndefinedBehaviorSanitizer)
# into ./build-fuzz and runs each one for a bounded time, starting from its
# committed seeds in tests/fuzz/corpus/<target>/ (every seed is replayed first).
#
#   scripts/fuzz.sh [SECONDS]          each target for SECONDS (default 60)
#   scripts/fuzz.sh [SECONDS] TARGET…  only these targets (e.g. fuzz_key, fuzz_dead_letter_copy)
#
# Every target with a seed folder tests/fuzz/corpus/<target>/ is run (a new
# target needs its idem_fuzzer() line in tests/fuzz/CMakeLists.txt and seeds).
#
# Prints the executions per target and whether it found anything. A finding (a
# crash, a sanitizer report, a broken invariant, a timeout or running out of
# memory) is kept as build-fuzz/findings/<target>/crash-… (or timeout-…, oom-…);
# replay it with  build-fuzz/tests/fuzz/<target> <file>. Exit 1 if any target
# found something. New inputs the fuzzer finds interesting go to
# build-fuzz/corpus/<target>/, never into the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
[ $# -gt 0 ] && shift
./scripts/install-deps.sh

if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DIDEM_BUILD_FUZZERS=ON -DIDEM_BUILD_TESTS=OFF >/dev/null
fi
cmake --build build-fuzz -j "$(nproc)" --target idem_fuzzers | grep -vE '^\[[0-9]+/[0-9]+\] |^ninja: no work to do' || true

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for t in tests/fuzz/corpus/*/; do targets+=("$(basename "$t")"); done
fi

export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
failed=0
for t in "${targets[@]}"; do
  bin="build-fuzz/tests/fuzz/$t"
  if [ ! -x "$bin" ]; then
    echo "fuzz: $t was not built (is its backend switched off?)" >&2
    failed=1
    continue
  fi
  work="build-fuzz/corpus/$t" findings="build-fuzz/findings/$t" log="build-fuzz/fuzz-$t.log"
  mkdir -p "$work" "$findings"
  # -timeout: one input taking 10 s is a finding (a hang), not a slow machine.
  rc=0
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  found=$(sed -n "s/.*Test unit written to //p" "$log")
  if [ "$rc" -eq 0 ]; then
    echo "fuzz: $t: ${runs:-?} executions in ${seconds} s, nothing found"
  else
    failed=1
    echo "fuzz: $t: FOUND something after ${runs:-?} executions (exit $rc); input: ${found:-none written}"
    grep -m1 -E "fuzz invariant broken|runtime error|what\(\)|ERROR: " "$log" | sed 's/^/fuzz:   /' || true
    echo "fuzz:   full report: $log"
  fi
done
exit "$failed"
