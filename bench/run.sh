#!/usr/bin/env bash
# Runs Loom's whole benchmark suite: builds the bench programs, runs every bench/bench_*.cpp
# program (Google Benchmark JSON into bench/results/), then bench/plot.py (PNGs into docs/bench/,
# the summary tables into bench/results/summary.md). On the 2-core PoCL machine the programs took
# 669 s (11.2 min) at commit 77c45fe, plus the build, before bench_matvec, bench_nbody and
# bench_gather (issue 22) joined, untimed as a whole yet; bench_geometry (a launch-geometry study,
# 240 s) runs only with --geometry. Run it on an otherwise quiet machine.
#
#   bench/run.sh                    # the full suite, sizes up to 2^26
#   bench/run.sh --max-log2 20      # a quick run (a few minutes)
#   bench/run.sh --filter saxpy     # only benchmarks whose name matches (a regex)
#   bench/run.sh --build-time       # also time `cmake --build` of a fresh tree with tests (-j2)
#   bench/run.sh --geometry         # also the launch-geometry study (bench_geometry, about 4 min)
#   bench/run.sh --cuda             # on a GPU machine: only bench_cuda (Loom's CUDA backend against
#                                   # handwritten CUDA), built in build-bench-cuda with LOOM_WITH_CUDA=ON
#   bench/run.sh --no-build --build-dir build-bench
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$repo/build-bench
max_log2=26
filter=
build=1
build_time=0
plot=1
geometry=0
cuda=0
while [ $# -gt 0 ]; do
    case $1 in
    --max-log2) max_log2=$2; shift 2 ;;
    --max-log2=*) max_log2=${1#*=}; shift ;;
    --filter) filter=$2; shift 2 ;;
    --build-dir) build_dir=$(realpath -m "$2"); shift 2 ;;
    --no-build) build=0; shift ;;
    --build-time) build_time=1; shift ;;
    --no-plot) plot=0; shift ;;
    --geometry) geometry=1; shift ;;
    --cuda) cuda=1; shift ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

results=$repo/bench/results
mkdir -p "$results"
programs=$(cd "$repo/bench" && ls bench_*.cpp | sed 's/\.cpp$//')
[ $geometry = 1 ] || programs=$(echo "$programs" | grep -v '^bench_geometry$')
with_cuda=OFF
run_command="bench/run.sh --max-log2 $max_log2"
if [ $cuda = 1 ]; then
    programs=bench_cuda
    with_cuda=ON
    run_command="$run_command --cuda"
    [ "$build_dir" = "$repo/build-bench" ] && build_dir=$repo/build-bench-cuda
fi

if [ $build = 1 ]; then
    cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DLOOM_BUILD_TESTS=OFF -DLOOM_WITH_CUDA=$with_cuda >/dev/null
    # shellcheck disable=SC2086
    cmake --build "$build_dir" -j2 --target $programs
fi

commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null)" ]; then commit=$commit-dirty; fi

# Kernels compiled by this run land here (sources included, once the disk cache stores them).
export LOOM_CACHE_DIR=$results/kernel-cache
rm -rf "$LOOM_CACHE_DIR"
export LOOM_BENCH_MAX_LOG2=$max_log2

start=$(date +%s)
for p in $programs; do
    exe=$build_dir/bench/$p
    [ -x "$exe" ] || { echo "run.sh: $exe is not built" >&2; exit 1; }
    echo "== $p (sizes up to 2^$max_log2)"
    t0=$(date +%s)
    args=(--benchmark_out="$results/$p.json" --benchmark_out_format=json
          --benchmark_context=loom_commit="$commit",command="$run_command")
    [ -n "$filter" ] && args+=(--benchmark_filter="$filter")
    # stderr carries the work-group tuning of every handwritten baseline: kept next to the JSON.
    "$exe" "${args[@]}" 2> >(tee "$results/$p.log" >&2)
    echo "== $p took $(( $(date +%s) - t0 )) s"
done
echo "== suite took $(( $(date +%s) - start )) s"

if [ $build_time = 1 ]; then
    # Issue 2: time to build the test suite from scratch on 2 cores.
    tree=$(mktemp -d /tmp/loom-build-time-XXXXXX)
    t0=$(date +%s.%N)
    cmake -S "$repo" -B "$tree" -DCMAKE_BUILD_TYPE=Release -DLOOM_BUILD_TESTS=ON -DLOOM_BUILD_BENCH=OFF \
        -DLOOM_WITH_CUDA=OFF >/dev/null
    t1=$(date +%s.%N)
    cmake --build "$tree" -j2 >/dev/null
    t2=$(date +%s.%N)
    printf '{"configure_s": %.1f, "build_s": %.1f, "jobs": 2, "commit": "%s", "command": "cmake --build <fresh tree> -j2 (LOOM_BUILD_TESTS=ON, LOOM_WITH_CUDA=OFF)"}\n' \
        "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" "$commit" >"$results/build_time.json"
    cat "$results/build_time.json"
    rm -rf "$tree"
fi

if [ $plot = 1 ]; then
    /usr/bin/python3 "$repo/bench/plot.py" "$results" "$repo/docs/bench"
fi
