#!/usr/bin/env bash
# Runs on a machine with an NVIDIA GPU, over the bundle scripts/gpu-bundle.sh made (programs
# built elsewhere, carried in .gpu/bundle.tar.xz): the CUDA suites (cuda_runtime, expr, blas, fft,
# and skeleton, runtime and fusion with LOOM_BACKEND=cuda), the examples on CUDA, the OpenCL
# suites again on NVIDIA's OpenCL driver when the machine has one, then the benchmarks.
# Logs and bench JSON go into one archive under $OUT (or ./gpu-out); a table is printed last.
#
#   scripts/gpu-check.sh tests        # suites and examples (about 2.5 minutes on an H200)
#   scripts/gpu-check.sh quick-bench  # the interleaved pairs at 2^24 and 2^26 (run_quick_bench)
#   scripts/gpu-check.sh all          # both: the one run a short lease makes
#   scripts/gpu-check.sh bench        # bench_cuda in full (sizes 2^10..2^26), plus the OpenCL
#                                     # benches on NVIDIA's OpenCL when present
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
# The folders the CUDA images keep them in, then the loader's cache, then a walk over the CUDA and
# driver folders only (not /usr/lib).
locate_lib() {
    local d
    for d in /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib64 /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do
        [ -e "$d/$1" ] && { echo "$d/$1"; return; }
    done
    ldconfig -p | awk -v l="$1" '$1 == l { print $NF; exit }' | grep . ||
        find /usr/local/cuda*/targets /usr/local/cuda*/lib64 /usr/local/nvidia -name "$1" -print -quit 2>/dev/null
}
for lib in libnvrtc.so.13 libcublas.so.13 libcufft.so.12 libcudart.so.13; do
    hit=$(locate_lib "$lib")
    [ -n "$hit" ] && case ":$libdirs:" in *":$(dirname "$hit"):"*) ;; *) libdirs=$libdirs:$(dirname "$hit") ;; esac
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
# Each step's start, seconds into the script: where a short lease's time goes.
stamp() { printf '%-26s at %4ss\n' "-- $1" "$SECONDS" >>"$summary"; }
stamp "unpacked, libraries found"
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

run_tests() {
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
    stamp "suites done"
    for ex in demo saxpy dot black_scholes heat2d heat3d matvec nbody dct8x8 fusion_log monte_carlo_pi conjugate_gradient; do
        run "example_$ex" 60 LOOM_BACKEND=cuda "$b/examples/$ex"
    done
    (cd "$work" && run example_mandelbrot 60 LOOM_BACKEND=cuda "$b/examples/mandelbrot" "$work/m.pgm")
    stamp "examples done"
}

# bench <name> <seconds> <program> <filter>: one JSON of results per run.
bench() {
    run "$1" "$2" LOOM_BACKEND="${backend:-cuda}" LOOM_BENCH_MAX_LOG2=26 "$b/bench/$3" --benchmark_filter="$4" \
        --benchmark_out="$work/results/$1.json" --benchmark_out_format=json \
        --benchmark_context=loom_commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null)",command="scripts/gpu-check.sh $what"
}

# The interleaved pairs at 2^24 and 2^26 and the copy-bandwidth reference; with a bench_cuda_before
# in the bundle (the previous build's, put there by hand), the workloads the change since touched
# by both builds in turn, A B A B, for a before-and-after in one run (`ab` below: the scan, whose
# single pass replaced three passes after 852894d). The OpenCL benches on NVIDIA's OpenCL, likewise.
run_quick_bench() {
    local big='/(16777216|67108864)$'
    bench bench_cuda 300 bench_cuda "interleaved$big|copybuffer$big"
    if [ -x "$b/bench/bench_cuda_before" ]; then
        local ab="^(inclusive_scan)/loom_expr$big"
        for round in 1 2; do
            bench "bench_cuda_before_$round" 60 bench_cuda_before "$ab"
            bench "bench_cuda_after_$round" 60 bench_cuda "$ab"
        done
    fi
    # The stencil again with Loom's grid kernel tuned over group shapes (launch::grid_tuning_candidates;
    # the choice and every shape's time are in the log, on LOOM_LOG=launch).
    LOOM_TUNE=on LOOM_LOG=launch bench bench_cuda_stencil_tuned 120 bench_cuda "stencil2d_5pt/interleaved$big"
    if [ -n "$ocl" ]; then
        backend=opencl bench bench_elementwise_nvidia_opencl 120 bench_elementwise "interleaved$big"
    fi
    stamp "benches done"
}

mkdir -p "$work/results"
case $what in
tests) run_tests ;;
quick-bench) run_quick_bench ;;
all) run_tests; run_quick_bench ;;
bench)
    bench bench_cuda 560 bench_cuda ""
    if [ -n "$ocl" ]; then
        for p in bench_elementwise bench_nbody bench_matvec bench_stencil bench_stencil3d bench_dct8x8 bench_spmv; do
            backend=opencl bench "${p}_nvidia_opencl" 120 "$p" interleaved
        done
    fi
    ;;
*) echo "gpu-check.sh: unknown step $what (tests, quick-bench, all, bench)" >&2; exit 2 ;;
esac
cp "$work"/results/*.json "$logs/" 2>/dev/null

tar -C "$work" -czf "$out/gpu-$what.tar.gz" logs summary.txt
# The end of the output is what comes back first: failures, then the table.
grep -h -B2 -A6 -E '^.*ERROR|FATAL|error:|terminate' "$logs"/*.log 2>/dev/null | head -120
cat "$summary"
