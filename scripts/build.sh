#!/usr/bin/env bash
# Configures and builds idem into ./build (-O2 with line tables, Ninja).
set -euo pipefail
cd "$(dirname "$0")/.."
"./scripts/install-deps.sh"
if [ ! -f build/build.ninja ]; then
  # -g1 (line tables: backtraces and profiles name file and line) compiles in
  # two thirds of the time of -g; configure build/ yourself for full debug info.
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
fi
cmake --build build -j "$(nproc)" | grep -vE '^\[[0-9]+/[0-9]+\] ' || true
test -x build/apps/idem/idem
