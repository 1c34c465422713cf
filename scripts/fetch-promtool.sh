#!/usr/bin/env bash
# Puts promtool (the Prometheus rule and metrics checker) at build/tools/promtool
# when it is not there yet: from Debian's `prometheus` package, unpacked, never
# installed (no Prometheus service is set up). The tests of the alert rules
# and of the /metrics format run it. Prints the path.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-build/tools/promtool}"
if [ -x "$out" ]; then echo "$out"; exit 0; fi
# Another build folder of this checkout (build-asan next to build) shares one copy.
if [ "$out" != build/tools/promtool ] && [ -x build/tools/promtool ]; then
  mkdir -p "$(dirname "$out")"
  cp build/tools/promtool "$out"
  echo "$out"
  exit 0
fi
if command -v promtool >/dev/null 2>&1; then
  mkdir -p "$(dirname "$out")"
  ln -sf "$(command -v promtool)" "$out"
  echo "$out"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
( cd "$work" && apt-get download prometheus >/dev/null 2>&1 ) || {
  # A fresh machine may not have the package lists yet.
  apt-get update >/dev/null 2>&1 || true
  ( cd "$work" && apt-get download prometheus >/dev/null ) || {
    echo "fetch-promtool: cannot download Debian's prometheus package (apt-get download prometheus);" \
         "install promtool on PATH or check the apt sources" >&2
    exit 1
  }
}
dpkg -x "$work"/prometheus_*.deb "$work/root"
mkdir -p "$(dirname "$out")"
cp "$work/root/usr/bin/promtool" "$out"
chmod +x "$out"
echo "$out"
