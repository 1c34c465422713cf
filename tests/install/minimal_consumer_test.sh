#!/usr/bin/env bash
# Usage: minimal_consumer_test.sh find_package|pkg_config BUILD_DIR MINIMAL_SOURCE_DIR CXX
# Installs BUILD_DIR into a temporary prefix and builds the minimal consumer
# against that prefix with only the sqlite component asked for, while CMake's
# and pkg-config's discovery of the other backends' libraries is turned off:
# it must build, load none of libpq, libmariadb, librabbitmq, librdkafka,
# libhiredis, apply published payments once each, and refuse a PostgreSQL URL
# by naming idem::postgres. Then, when the install has the postgres component,
# a build that asks for it too opens postgresql:// URLs. Any step that fails
# fails the test.
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
pcdir=$(find "$prefix" -name idem-sqlite.pc -printf '%h\n' | head -n 1)
[ -n "$pcdir" ] || { echo "cmake --install put no idem-sqlite.pc in $prefix"; exit 1; }
# The only pkg-config modules the SQLite-only builds may see: idem's and sqlite3.
mkdir "$work/pc-sqlite"
ln -s "$(pkg-config --variable=pcfiledir sqlite3)/sqlite3.pc" "$work/pc-sqlite/"

# build_consumer OUT COMPONENTS...: the minimal consumer linked with those components.
build_consumer() {
  local out=$1; shift
  local log=$work/$(basename "$out").log
  case "$how" in
    find_package)
      local components hide=()
      components=$(IFS=';'; echo "$*")
      if [ "$components" = sqlite ]; then
        hide=(-DCMAKE_DISABLE_FIND_PACKAGE_PostgreSQL=ON)
        export PKG_CONFIG_LIBDIR=$work/pc-sqlite
      fi
      cmake -S "$minimal" -B "$out.build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
        -DCMAKE_BUILD_TYPE=Release -DIDEM_COMPONENTS="$components" "${hide[@]}" >"$log" 2>&1 &&
        cmake --build "$out.build" >>"$log" 2>&1 || { cat "$log"; exit 1; }
      unset PKG_CONFIG_LIBDIR
      cp "$out.build/minimal_consumer" "$out"
      ;;
    pkg_config)
      local modules=() flags libdir=$work/pc-sqlite
      for c in "$@"; do modules+=("idem-$c"); done
      [ "$*" = sqlite ] || libdir=$(pkg-config --variable=pc_path pkg-config)
      flags=$(PKG_CONFIG_LIBDIR=$pcdir:$libdir pkg-config --cflags --libs "${modules[@]}") || exit 1
      # shellcheck disable=SC2086  # the flags are words
      "$cxx" -std=c++20 -o "$out" "$minimal/main.cc" $flags >"$log" 2>&1 || { cat "$log"; exit 1; }
      ;;
    *) echo "unknown way to build: $how"; exit 2 ;;
  esac
}

# A component that cannot be had fails find_package with what to do, before anything is built.
# expect_configure_error COMPONENTS TEXT [CMAKE ARGS...]
expect_configure_error() {
  local components=$1 text=$2; shift 2
  local log=$work/refused.log
  if cmake -S "$minimal" -B "$work/refused" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
      -DIDEM_COMPONENTS="$components" "$@" >"$log" 2>&1; then
    echo "find_package(idem COMPONENTS $components) succeeded; want it refused with '$text'"; exit 1
  fi
  grep -qF "$text" "$log" || { cat "$log"; echo "the refusal does not say '$text'"; exit 1; }
  echo "COMPONENTS $components refused: $(grep -F "$text" "$log" | head -n 1 | sed 's/^ *//')"
  rm -rf "$work/refused"
}
if [ "$how" = find_package ]; then
  expect_configure_error "sqlite;sqlit" "no such component"
  if [ -f "$pcdir/idem-redis.pc" ]; then
    PKG_CONFIG_LIBDIR=$work/pc-sqlite expect_configure_error "sqlite;redis" "libhiredis-dev"
  fi
fi

consumer=$work/minimal_consumer
build_consumer "$consumer" sqlite
needed=$(readelf -d "$consumer" | grep NEEDED || true)
if echo "$needed" | grep -E 'libpq|libmariadb|librabbitmq|librdkafka|libhiredis'; then
  echo "the SQLite-only consumer loads another backend's library:"; echo "$needed"; exit 1
fi
echo "the SQLite-only consumer loads:" $(echo "$needed" | grep -oE '\[[^]]*\]')

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

# open_postgres CONSUMER: exit 1 (nothing listens on port 1), and the error it gives.
open_postgres() {
  local rc=0 err
  err=$("$1" "$work/queue.db" "postgresql://idem@127.0.0.1:1/idem" 2>&1 >/dev/null) || rc=$?
  [ "$rc" = 1 ] || { echo "postgresql:// URL: exit $rc, want 1: $err"; exit 1; }
  echo "$err"
}
err=$(open_postgres "$consumer")
case "$err" in
  *"link idem::postgres"*) echo "refused as expected: $err" ;;
  *) echo "the SQLite-only consumer's error does not name idem::postgres: $err"; exit 1 ;;
esac

if [ -f "$pcdir/idem-postgres.pc" ]; then
  with_pg=$work/minimal_consumer_postgres
  build_consumer "$with_pg" sqlite postgres
  readelf -d "$with_pg" | grep -q 'NEEDED.*libpq' || { echo "the consumer with postgres does not load libpq"; exit 1; }
  err=$(open_postgres "$with_pg")
  case "$err" in
    *"leaves out"*) echo "the consumer linked with idem::postgres still refuses postgresql://: $err"; exit 1 ;;
    *) echo "with the postgres component it tries the server: $err" ;;
  esac
fi
