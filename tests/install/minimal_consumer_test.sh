#!/usr/bin/env bash
# Usage: minimal_consumer_test.sh find_package|pkg_config BUILD_DIR MINIMAL_SOURCE_DIR CXX
# Installs BUILD_DIR into a temporary prefix, builds the minimal consumer
# against that prefix alone, publishes three payments with copies through the
# installed `idem publish`, runs the consumer and checks the ledger: every
# payment exactly once. Any step that fails fails the test.
set -euo pipefail
how=$1 build=$2 minimal=$3 cxx=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; exit 1; }
[ -x "$prefix/bin/idem" ] || { echo "cmake --install put no idem tool in $prefix/bin"; exit 1; }
if [ -d "$prefix/include/core" ] || [ -d "$prefix/include/src" ]; then
  echo "private headers were installed:"; ls "$prefix/include"; exit 1
fi

case "$how" in
  find_package)
    cmake -S "$minimal" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
    cmake --build "$work/build" >"$work/build.log" || { cat "$work/build.log"; exit 1; }
    consumer=$work/build/minimal_consumer
    ;;
  pkg_config)
    libdir=$(find "$prefix" -name idem.pc -printf '%h\n' | head -n 1)
    [ -n "$libdir" ] || { echo "cmake --install put no idem.pc in $prefix"; exit 1; }
    flags=$(PKG_CONFIG_PATH=$libdir pkg-config --cflags --libs idem)
    consumer=$work/minimal_consumer
    # shellcheck disable=SC2086  # the flags are words
    "$cxx" -std=c++20 -o "$consumer" "$minimal/main.cc" $flags
    ;;
  *) echo "unknown way to build: $how"; exit 2 ;;
esac

printf '%s\n' '{"payment_id":"P1","amount_cents":100}' '{"payment_id":"P2","amount_cents":200}' \
  '{"payment_id":"P1","amount_cents":100}' '{"payment_id":"P3","amount_cents":300}' \
  '{"payment_id":"P2","amount_cents":200}' '{"payment_id":"P1","amount_cents":100}' |
  "$prefix/bin/idem" publish --queue "$work/queue.db" --topic pay --key-fields payment_id

out=$("$consumer" "$work/queue.db" "$work/ledger.db")
echo "$out"
[ "$out" = "received 6, applied 3, duplicates 3, parked 0" ] || { echo "unexpected consumer summary"; exit 1; }

ledger=$(sqlite3 "$work/ledger.db" "SELECT entry_key FROM ledger ORDER BY entry_key" | tr '\n' ' ')
[ "$ledger" = "pay:P1 pay:P2 pay:P3 " ] || { echo "ledger holds: '$ledger', want each payment once"; exit 1; }
echo "ledger holds each payment once: $ledger"
