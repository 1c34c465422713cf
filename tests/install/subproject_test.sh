#!/usr/bin/env bash
# Usage: subproject_test.sh IDEM_SOURCE_DIR BUILD_DIR IDEM_TOOL CXX [LAUNCHER]
# Builds tests/install/subproject (idem through add_subdirectory, defaults
# only) in BUILD_DIR, then checks the minimal consumer it links: it applies
# published payments once each, and it answers URLs of the backends that
# build leaves out with the CMake option that builds them.
set -euo pipefail
src=$1 build=$2 idem=$3 cxx=$4 launcher=${5:-}
cmake -S "$src/tests/install/subproject" -B "$build" -DIDEM_SOURCE_DIR="$src" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher" >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" >"$build.build.log" 2>&1 || { cat "$build.build.log"; exit 1; }
consumer=$build/minimal_consumer

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%s\n' '{"payment_id":"P1"}' '{"payment_id":"P1"}' '{"payment_id":"P2"}' |
  "$idem" publish --queue "$work/queue.db" --topic pay --key-fields payment_id
out=$("$consumer" "$work/queue.db" "$work/ledger.db")
[ "$out" = "received 3, applied 2, duplicates 1, parked 0" ] || { echo "unexpected summary: $out"; exit 1; }

# expect_refusal QUEUE_URL STORE_URL OPTION: exit 1, and the error names -DOPTION=ON.
expect_refusal() {
  local rc=0 err
  err=$("$consumer" "$1" "$2" 2>&1 >/dev/null) || rc=$?
  [ "$rc" = 1 ] || { echo "$1 $2: exit $rc, want 1"; exit 1; }
  case "$err" in *"-D$3=ON"*) echo "refused as expected: $err" ;; *) echo "$1 $2: error does not name $3: $err"; exit 1 ;; esac
}
expect_refusal "$work/queue.db" "postgresql://localhost/db" IDEM_WITH_POSTGRES
expect_refusal "amqp://localhost/%2f?queue=q" "$work/ledger.db" IDEM_WITH_RABBITMQ
