#!/usr/bin/env bash
# Usage: deb_packages_test.sh BUILD_DIR MINIMAL_SOURCE_DIR CXX [EVIDENCE_FILE]
# Makes the Debian packages with `cpack -G DEB` in BUILD_DIR, checks what each
# holds and depends on, installs both with dpkg -i, builds examples/minimal
# against the installed files (find_package, sqlite component only) and runs
# it on payments published with the installed idem, checks the sample
# configuration with the installed `idem run --check` and the unit with
# `systemd-analyze verify` (where systemd is installed), then removes both
# packages. dpkg -i changes the machine: CI runs as root on a throwaway one;
# anyone else is skipped (exit 77). EVIDENCE_FILE, when given, receives the
# package listings, the --version line and the consumer's build.
set -euo pipefail
build=$1 minimal=$2 cxx=$3 evidence=${4:-}
if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: installing packages with dpkg -i needs root (CI runs this test as root)"
  exit 77
fi
for p in idem libidem-dev; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    echo "package $p is installed already: this test installs and removes its own; remove it first (dpkg -r $p)"
    exit 1
  fi
done
work=$(mktemp -d)
cleanup() { dpkg --purge idem libidem-dev >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/deb") >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack -G DEB"; }
cli=$(ls "$work"/deb/idem_*.deb) dev=$(ls "$work"/deb/libidem-dev_*.deb)
dpkg -c "$cli" >"$work/cli.contents"
dpkg -c "$dev" >"$work/dev.contents"

# has LISTING PATH: the package holds PATH.
has() { grep -qE " \./${2#/}$" "$1" || fail "$(basename "$1" .contents) package has no $2"; }
for f in /usr/bin/idem /lib/systemd/system/idem-run@.service /etc/idem/example.toml \
    /usr/share/idem/prometheus/idem_alerts.yml /usr/share/doc/idem/LICENSE /usr/share/doc/idem/docs/operations.md; do
  has "$work/cli.contents" "$f"
done
for f in /usr/include/idem/consumer.h /usr/lib/libidem_core.a /usr/lib/libidem_sqlite.a \
    /usr/lib/cmake/idem/idemConfig.cmake /usr/lib/cmake/idem/idem-sqlite-targets.cmake /usr/lib/pkgconfig/idem-sqlite.pc \
    /usr/lib/pkgconfig/idem.pc; do
  has "$work/dev.contents" "$f"
done
grep -qE '/(src|core|connect)/' "$work/dev.contents" && fail "libidem-dev holds private sources or headers"
grep -q 'usr/bin/' "$work/dev.contents" && fail "libidem-dev holds programs (they belong to the idem package)"

# Depends: the tool's from dpkg-shlibdeps (SQLite's runtime library at least);
# the development package's only SQLite's headers, the backends' as Suggests.
depends=$(dpkg-deb -f "$cli" Depends)
case "$depends" in *libsqlite3-0*libc6*|*libc6*libsqlite3-0*) ;; *) fail "idem Depends lacks shlibdeps: $depends" ;; esac
[ "$(dpkg-deb -f "$dev" Depends)" = "libsqlite3-dev" ] || fail "libidem-dev Depends: $(dpkg-deb -f "$dev" Depends)"

dpkg -i "$cli" "$dev" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i"; }
getent passwd idem >/dev/null || fail "the idem package created no idem user"
[ "$(stat -c '%G %a' /etc/idem/example.toml)" = "idem 640" ] || fail "/etc/idem/example.toml: $(stat -c '%U:%G %a' /etc/idem/example.toml)"
version=$(/usr/bin/idem --version)
echo "$version"
/usr/bin/idem run --check /etc/idem/example.toml || fail "the sample configuration does not pass idem run --check"

# The consumer a new user copies, against the installed package only, with
# only the sqlite component's dependency visible: pkg-config sees sqlite3.pc
# alone and CMake may not look for PostgreSQL.
mkdir "$work/pc-sqlite"
ln -s "$(pkg-config --variable=pcfiledir sqlite3)/sqlite3.pc" "$work/pc-sqlite/"
PKG_CONFIG_LIBDIR=$work/pc-sqlite cmake -S "$minimal" -B "$work/minimal" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_DISABLE_FIND_PACKAGE_PostgreSQL=ON >"$work/minimal.log" 2>&1 &&
  cmake --build "$work/minimal" >>"$work/minimal.log" 2>&1 ||
  { cat "$work/minimal.log"; fail "examples/minimal does not build against the installed libidem-dev"; }
readelf -d "$work/minimal/minimal_consumer" | grep -E 'NEEDED.*(libpq|libmariadb|librabbitmq|librdkafka|libhiredis)' &&
  fail "the SQLite-only consumer loads another backend's library"
grep -q '/usr/lib/cmake/idem' "$work/minimal/CMakeCache.txt" || fail "examples/minimal did not use /usr/lib/cmake/idem"
printf '%s\n' '{"payment_id":"P1"}' '{"payment_id":"P2"}' '{"payment_id":"P1"}' |
  /usr/bin/idem publish --broker "queue:$work/q.db" --topic pay --key-fields payment_id >/dev/null
out=$("$work/minimal/minimal_consumer" "$work/q.db" "$work/ledger.db")
[ "$out" = "received 3, applied 2, duplicates 1, parked 0" ] || fail "minimal consumer: $out"
echo "minimal consumer against the installed package: $out"

if command -v systemd-analyze >/dev/null; then
  systemd-analyze verify /lib/systemd/system/idem-run@.service || fail "systemd-analyze verify idem-run@.service"
  echo "systemd-analyze verify idem-run@.service: no findings"
else
  echo "systemd-analyze is not installed (package systemd): the unit was not verified"
fi

if [ -n "$evidence" ]; then
  {
    echo "# idem --version (installed package)"; echo "$version"; echo
    echo "# dpkg -c $(basename "$dev")"; cat "$work/dev.contents"; echo
    echo "# dpkg -c $(basename "$cli")"; cat "$work/cli.contents"; echo
    echo "# Depends"; echo "idem: $depends"; echo "libidem-dev: $(dpkg-deb -f "$dev" Depends)"
    echo "libidem-dev Suggests: $(dpkg-deb -f "$dev" Suggests)"; echo
    echo "# examples/minimal built against the installed package: find_package(idem REQUIRED COMPONENTS sqlite)"
    echo "# from /usr/lib/cmake/idem, pkg-config seeing sqlite3.pc alone, -DCMAKE_DISABLE_FIND_PACKAGE_PostgreSQL=ON"
    cat "$work/minimal.log"
    echo "NEEDED of minimal_consumer:"; readelf -d "$work/minimal/minimal_consumer" | grep NEEDED
    echo "$out"
  } >"$evidence"
fi
dpkg --purge idem libidem-dev >/dev/null || fail "dpkg --purge"
[ ! -e /usr/bin/idem ] || fail "dpkg --purge left /usr/bin/idem"
echo "packages installed, checked and removed"
