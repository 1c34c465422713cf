#!/usr/bin/env bash
# Installs every build and test dependency from Debian's packages.
# Idempotent and quiet: when everything is present it prints nothing and exits 0.
set -euo pipefail

packages=(
  # build
  cmake ninja-build g++ pkg-config
  # libraries
  libsqlite3-dev nlohmann-json3-dev libcli11-dev libxxhash-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev sqlite3
)
if [ -f "$(dirname "$0")/extra-packages.txt" ]; then
  # Backends that landed later list their packages here, one per line.
  while read -r p; do [ -n "$p" ] && [ "${p#\#}" = "$p" ] && packages+=("$p"); done \
    < "$(dirname "$0")/extra-packages.txt"
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# The console's browser test drives Debian's chromium with playwright-core from
# npm, pinned by tests/console/browser/package-lock.json, into its node_modules
# (ignored by git). Done again only when the lock file changed.
install_browser_test() {
  local dir
  dir="$(cd "$(dirname "$0")/.." && pwd)/tests/console/browser"
  # Debian's own nodejs comes without npm (the nodesource build carries it).
  if ! command -v npm >/dev/null && [ "$(id -u)" -eq 0 ]; then
    echo "install-deps: installing npm" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >/dev/null ||
      echo "install-deps: apt-get install npm failed" >&2
  fi
  if ! command -v npm >/dev/null; then
    echo "install-deps: npm is missing (apt-get install npm): the console_browser test will fail" >&2
    return 0
  fi
  [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ] && return 0
  echo "install-deps: npm ci in tests/console/browser" >&2
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
    echo "install-deps: npm ci failed in tests/console/browser: the console_browser test will fail" >&2
}

if [ ${#missing[@]} -eq 0 ]; then
  install_browser_test
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run this script as root (or: sudo apt-get install -y ${missing[*]})" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
install_browser_test
