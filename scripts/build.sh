#!/usr/bin/env bash
# Configures and builds idem into ./build (Release with debug info, Ninja).
set -euo pipefail
cd "$(dirname "$0")/.."
"./scripts/install-deps.sh"
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build build -j "$(nproc)" | grep -vE '^\[[0-9]+/[0-9]+\] ' || true
test -x build/apps/idem/idem
