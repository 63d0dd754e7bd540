#!/usr/bin/env bash
# Installs what is missing, builds Loom with its tests (warnings are errors), and runs
# the whole test suite. CI runs exactly this (.ci/run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
build="$root/build-test"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLOOM_WARNINGS_AS_ERRORS=ON -DLOOM_BUILD_BENCH=ON -DLOOM_WITH_MPI=ON \
      -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest --output-on-failure -j"$(nproc)" "$@"
