#!/usr/bin/env bash
# Installs what is missing, builds Loom, and runs the demo on the default backend.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DLOOM_BUILD_TESTS=OFF -DLOOM_BUILD_BENCH=OFF
cmake --build "$root/build" -j"$(nproc)" --target demo
LOOM_CACHE_DIR="${LOOM_CACHE_DIR:-$root/kernel-cache}" "$root/build/examples/demo"
