#!/usr/bin/env bash
# The sanitizer configuration CI runs after the full suite: Loom and its fast suites built with
# AddressSanitizer and UndefinedBehaviorSanitizer (OpenCL only), run on PoCL, plus the program
# that leaves a statement to a static context's destruction. A finding fails the run.
#   bash scripts/sanitize.sh                 # address,undefined
#   LOOM_SANITIZE=thread bash scripts/sanitize.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
sanitizers=${LOOM_SANITIZE:-address,undefined}
build="$root/build-sanitize"
# -O1 -g1, as the sanitizers advise: line tables for their reports, in far less compile time
# than -O2 -g.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
      -DLOOM_WARNINGS_AS_ERRORS=ON -DLOOM_WITH_CUDA=OFF \
      -DLOOM_BUILD_BENCH=OFF -DLOOM_BUILD_EXAMPLES=OFF -DLOOM_SANITIZE="$sanitizers"
cmake --build "$build" -j"$(nproc)" --target test_ir test_codegen test_fusion test_runtime test_cache test_skeleton \
      static_context_at_exit loom-cache
cd "$build"
# PoCL and the OpenCL loader are not instrumented and keep allocations to the end of the
# process on purpose (so does Loom's own registries, by design): leaks are not checked.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --output-on-failure -j"$(nproc)" -L '^(ir|codegen|fusion|runtime|cache|skeleton|exit)$' "$@"
