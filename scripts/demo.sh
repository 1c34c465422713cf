#!/usr/bin/env bash
# The main job: builds idem and runs the payments incident demo on the embedded
# default (SQLite store + embedded queue in a temporary folder; no server).
# Extra arguments go to `idem demo` (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
exec ./build/apps/idem/idem demo "$@"
