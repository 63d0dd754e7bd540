#!/usr/bin/env bash
# Packs a CUDA-enabled build's test, example, tool and bench programs, with the shared libraries
# they need that a bare GPU machine lacks (the OpenCL ICD loader, xxhash, Google Benchmark), into
# one folder that can travel to such a machine; scripts/gpu-check.sh runs them there. Building
# on the GPU machine itself needs Boost, the OpenCL headers and the rest of install-deps.sh,
# which a bare CUDA image does not have: the programs are built here and carried.
#
#   scripts/gpu-bundle.sh [build-dir] [dest]     # defaults: build .gpu
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$repo/build}")
dest=$(realpath -m "${2:-$repo/.gpu}")
[ -x "$build/bench/bench_cuda" ] || { echo "gpu-bundle: $build has no bench_cuda: configure with LOOM_WITH_CUDA=ON and LOOM_BUILD_BENCH=ON" >&2; exit 1; }
rm -rf "$dest"
mkdir -p "$dest/build/tests" "$dest/build/bench" "$dest/build/examples" "$dest/build/tools" "$dest/lib"
copy() { # copy <from-dir> <to-dir> <file>...
    local from=$1 to=$2; shift 2
    for f in "$@"; do [ -x "$from/$f" ] && [ -f "$from/$f" ] && strip -o "$to/$f" "$from/$f"; done; return 0
}
copy "$build/tests" "$dest/build/tests" $(cd "$build/tests" && ls test_* loom_fuzz 2>/dev/null)
copy "$build/bench" "$dest/build/bench" $(cd "$build/bench" && ls bench_* cuda_code_quality 2>/dev/null)
copy "$build/examples" "$dest/build/examples" $(cd "$build/examples" && ls)
copy "$build/tools" "$dest/build/tools" loom-cache loom-info
# The tests name files under the build tree they were built in (loom-info, scratch files):
# gpu-check.sh links that path to the unpacked bundle.
echo "$build" >"$dest/build/build-path"
# The libraries a bare CUDA image lacks; the CUDA ones (runtime, NVRTC, cuBLAS) are the machine's own.
for lib in libOpenCL.so.1 libxxhash.so.0 libbenchmark.so.1debian libclblast.so.1; do
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
    [ -n "$path" ] && cp -L "$path" "$dest/lib/"
done
# Compressed, the bundle travels in a quarter of the room (the device tool carries 64 MiB).
tar -C "$dest" -cJf "$dest.tar.xz" build lib
rm -rf "$dest"; mkdir -p "$dest"; mv "$dest.tar.xz" "$dest/bundle.tar.xz"
du -sh "$dest/bundle.tar.xz"
