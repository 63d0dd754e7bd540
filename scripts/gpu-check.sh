#!/usr/bin/env bash
# Runs on a machine with an NVIDIA GPU, over the bundle scripts/gpu-bundle.sh made (programs
# built elsewhere, carried in .gpu/bundle.tar.xz): the CUDA suites (cuda_runtime, expr, blas, fft,
# and skeleton, runtime and fusion with LOOM_BACKEND=cuda), the examples on CUDA, the OpenCL
# suites again on NVIDIA's OpenCL driver when the machine has one, then the benchmarks.
# Logs and bench JSON go into one archive under $OUT (or ./gpu-out); a table is printed last.
#
#   scripts/gpu-check.sh tests        # suites and examples (a few minutes)
#   scripts/gpu-check.sh bench        # bench_cuda in full (sizes 2^10..2^26), plus the OpenCL
#                                     # benches on NVIDIA's OpenCL when present
#   scripts/gpu-check.sh quick-bench  # the interleaved pairs at 2^26 only
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-tests}
out=${OUT:-$repo/gpu-out}
work=/tmp/loom-gpu
logs=$work/logs
mkdir -p "$out" "$logs"
[ -d "$work/build" ] || tar -C "$work" -xJf "$repo/.gpu/bundle.tar.xz" || exit 1
b=$work/build
built_in=$(cat "$b/build-path")
[ -e "$built_in" ] || { mkdir -p "$(dirname "$built_in")" && ln -s "$b" "$built_in"; }

# The machine's own CUDA libraries (NVRTC, cuBLAS, cuFFT, the runtime) wherever its image keeps them.
libdirs=$work/lib
# The loader's cache first, then the CUDA and driver folders only (not a walk over /usr/lib).
locate_lib() {
    ldconfig -p | awk -v l="$1" '$1 == l { print $NF; exit }' | grep . ||
        find /usr/local/cuda*/targets /usr/local/cuda*/lib64 /usr/local/nvidia -name "$1" -print -quit 2>/dev/null
}
for lib in libnvrtc.so.13 libcublas.so.13 libcufft.so.12 libcudart.so.13; do
    hit=$(locate_lib "$lib")
    [ -n "$hit" ] && libdirs=$libdirs:$(dirname "$hit")
done
export LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LOOM_CACHE_DIR=$work/kernel-cache LOOM_TEST_SEED=${LOOM_TEST_SEED:-20261124}

# NVIDIA's OpenCL driver, when the image mounts it, named in an ICD folder of our own beside the
# machine's own drivers (Loom's default OpenCL device is the first GPU).
ocl=$(locate_lib libnvidia-opencl.so.1)
if [ -n "$ocl" ]; then
    mkdir -p "$work/icd"; cp /etc/OpenCL/vendors/*.icd "$work/icd/" 2>/dev/null
    echo "$ocl" >"$work/icd/nvidia.icd"; export OCL_ICD_VENDORS=$work/icd
fi

summary=$work/summary.txt
: >"$summary"
# run <name> <seconds> [VAR=value...] <program> [args...]: one log per program, one line of summary.
run() {
    local name=$1 limit=$2; shift 2
    local t0=$SECONDS
    env "$@" >"$logs/$name.log" 2>&1 </dev/null &
    local pid=$!
    ( sleep "$limit"; kill -9 $pid 2>/dev/null ) & local killer=$!
    wait $pid; local rc=$?
    kill $killer 2>/dev/null; wait $killer 2>/dev/null
    # Some suites start child processes that print their own doctest summary: the suite's own
    # is the one that counts the most test cases.
    local cases; cases=$(grep -E '^\[doctest\] test cases' "$logs/$name.log" | sort -t: -k2 -n -r | head -1)
    printf '%-26s rc=%-3s %4ss  %s\n' "$name" "$rc" "$((SECONDS - t0))" "$cases" >>"$summary"
}

{
    nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.mem --format=csv,noheader
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"; echo "NVIDIA OpenCL: ${ocl:-none}"
    ls /etc/OpenCL/vendors 2>/dev/null
} >"$logs/machine.txt" 2>&1
cat "$logs/machine.txt"

case $what in
tests)
    run loom-info 60 "$b/tools/loom-info"
    # The suites at once: 16 cores compile their kernels side by side; the GPU takes turns.
    run cuda_runtime 300 "$b/tests/test_cuda_runtime" &
    run expr_cuda 300 LOOM_BACKEND=cuda "$b/tests/test_expr" &
    run blas_cuda 300 LOOM_BACKEND=cuda "$b/tests/test_blas" &
    run fft_cuda 300 LOOM_BACKEND=cuda "$b/tests/test_fft" &
    run sparse_cuda 300 LOOM_BACKEND=cuda "$b/tests/test_sparse" &
    run skeleton_cuda 300 LOOM_BACKEND=cuda "$b/tests/test_skeleton" &
    run runtime_cuda 300 LOOM_BACKEND=cuda "$b/tests/test_runtime" &
    run fusion_cuda 300 LOOM_BACKEND=cuda "$b/tests/test_fusion" &
    if [ -n "$ocl" ]; then
        run expr_nvidia_opencl 300 LOOM_BACKEND=opencl "$b/tests/test_expr" &
        run skeleton_nvidia_opencl 300 LOOM_BACKEND=opencl "$b/tests/test_skeleton" &
    fi
    wait
    for ex in demo saxpy dot black_scholes heat2d heat3d matvec nbody dct8x8 fusion_log monte_carlo_pi conjugate_gradient; do
        run "example_$ex" 60 LOOM_BACKEND=cuda "$b/examples/$ex"
    done
    (cd "$work" && run example_mandelbrot 60 LOOM_BACKEND=cuda "$b/examples/mandelbrot" "$work/m.pgm")
    ;;
quick-bench | bench)
    filter=; [ "$what" = quick-bench ] && filter=interleaved
    mkdir -p "$work/results"
    args=(--benchmark_out="$work/results/bench_cuda.json" --benchmark_out_format=json
          --benchmark_context=loom_commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null)",command="scripts/gpu-check.sh $what")
    [ -n "$filter" ] && args+=(--benchmark_filter="$filter")
    run bench_cuda 560 LOOM_BACKEND=cuda LOOM_BENCH_MAX_LOG2=26 "$b/bench/bench_cuda" "${args[@]}"
    if [ -n "$ocl" ] && [ "$what" = bench ]; then
        for p in bench_elementwise bench_nbody bench_matvec bench_stencil bench_stencil3d bench_dct8x8 bench_spmv; do
            run "${p}_nvidia_opencl" 120 LOOM_BACKEND=opencl LOOM_BENCH_MAX_LOG2=26 "$b/bench/$p" \
                --benchmark_filter=interleaved --benchmark_out="$work/results/$p.json" --benchmark_out_format=json
        done
    fi
    cp "$work"/results/*.json "$logs/" 2>/dev/null
    ;;
*) echo "gpu-check.sh: unknown step $what (tests, bench, quick-bench)" >&2; exit 2 ;;
esac

tar -C "$work" -czf "$out/gpu-$what.tar.gz" logs summary.txt
# The end of the output is what comes back first: failures, then the table.
grep -h -B2 -A6 -E '^.*ERROR|FATAL|error:|terminate' "$logs"/*.log 2>/dev/null | head -120
cat "$summary"
