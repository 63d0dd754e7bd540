#!/usr/bin/env bash
# Packs a built bench_cuda with the shared libraries a bare GPU machine may lack (Google
# Benchmark, xxhash, the OpenCL ICD loader, the C++ runtime, CUDA's runtime) into one folder,
# for a machine with an NVIDIA driver and a CUDA 13 toolkit but no build tools or packages.
# NVRTC (over 100 MB) and the driver's libcuda are not packed: they come from that machine.
#
#   bash bench/run.sh --cuda --no-plot || true   # here: builds build-bench-cuda (no GPU: it stops)
#   bash bench/cuda/pack.sh                      # -> build-bench-cuda/pack
#   build-bench-cuda/pack/run.sh --benchmark_out=bench_cuda.json --benchmark_out_format=json
#   # there; then here: copy bench_cuda.json into bench/results/ and run bench/plot.py
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
exe=${1:-$repo/build-bench-cuda/bench/bench_cuda}
out=${2:-$repo/build-bench-cuda/pack}
[ -x "$exe" ] || { echo "pack.sh: $exe is not built (bash bench/run.sh --cuda builds it)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/lib"
cp "$exe" "$out/bench_cuda"
ldd "$exe" | awk '$3 ~ /^\// { print $3 }' | while read -r lib; do
    case $(basename "$lib") in
    libc.so* | libm.so* | libpthread.so* | librt.so* | libdl.so* | ld-linux*) ;; # the system's own
    libnvrtc* | libcuda.so*) ;;                                                   # the GPU machine's
    *) cp -L "$lib" "$out/lib/" ;;
    esac
done
cat >"$out/run.sh" <<'EOF'
#!/usr/bin/env bash
# bench_cuda with the libraries packed beside it; NVRTC from the machine's CUDA toolkit.
here=$(cd "$(dirname "$0")" && pwd)
cuda_lib=$(dirname "$(readlink -f "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")/../lib64
export LD_LIBRARY_PATH="$here/lib:$cuda_lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
exec "$here/bench_cuda" "$@"
EOF
chmod +x "$out/run.sh"
echo "packed $(du -sh "$out" | cut -f1) into $out: $(ls "$out/lib" | tr '\n' ' ')"
