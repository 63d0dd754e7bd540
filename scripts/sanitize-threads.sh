#!/usr/bin/env bash
# The ThreadSanitizer configuration CI runs after scripts/sanitize.sh: Loom and the three suites
# whose test cases run contexts on several threads (or several processes) at once, built with
# -fsanitize=thread (OpenCL only), and only those test cases run (the ctest label `threads`, see
# tests/CMakeLists.txt): the rest of the suites is single-threaded and costs TSan build and run
# time for nothing. A report fails the run; tests/sanitize/tsan.supp says what may be silenced
# (nothing of Loom's).
#   bash scripts/sanitize-threads.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
build="$root/build-tsan"
# -O1 -g1, as the sanitizers advise: line tables for their reports, in far less compile time
# than -O2 -g.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
      -DLOOM_WARNINGS_AS_ERRORS=ON -DLOOM_WITH_CUDA=OFF \
      -DLOOM_BUILD_BENCH=OFF -DLOOM_BUILD_EXAMPLES=OFF -DLOOM_SANITIZE=thread
cmake --build "$build" -j"$(nproc)" --target test_runtime test_fusion test_cache
cd "$build"
export TSAN_OPTIONS="suppressions=$root/tests/sanitize/tsan.supp:halt_on_error=1:second_deadlock_stack=1"
# PoCL's own kernel cache starts empty, so that the kernels really compile, on several threads at once.
POCL_CACHE_DIR=$(mktemp -d)
export POCL_CACHE_DIR
trap 'rm -rf "$POCL_CACHE_DIR"' EXIT
ctest --output-on-failure -j"$(nproc)" -L '^threads$' "$@"
