#!/usr/bin/env bash
# The new user's path on a fresh Debian 12 root: debootstrap bookworm, install Loom's .deb (built by
# cpack) with apt, then, as an ordinary user, build and run an outside saxpy program with
# find_package(loom) and again with pkg-config, and run loom-info and loom-cache. The root has no
# GPU and no CUDA: everything must run on PoCL. Needs root (debootstrap, chroot, mounts) and network
# (the Debian mirror). Too slow for CI (a few minutes); run it before a release.
#
#   sudo bash scripts/new-user-check.sh [path/to/loom-dev_*.deb]
#
# Without a .deb it builds one in build-newuser/ (tests, examples and benchmarks off).
# LOOM_MIRROR: the Debian mirror (default http://deb.debian.org/debian);
# LOOM_NEWUSER_BASE: an untouched debootstrapped bookworm root to copy instead of running debootstrap;
# LOOM_NEWUSER_KEEP=1 keeps the root afterwards (its path is printed).
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "new-user-check: needs root (debootstrap, chroot, mount); run it with sudo" >&2
  exit 2
fi
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mirror=${LOOM_MIRROR:-http://deb.debian.org/debian}

deb=${1:-}
if [ -z "$deb" ]; then
  build=$repo/build-newuser
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLOOM_BUILD_TESTS=OFF -DLOOM_BUILD_EXAMPLES=OFF \
        -DLOOM_BUILD_BENCH=OFF
  cmake --build "$build" -j "${JOBS:-$(nproc)}"
  (cd "$build" && cpack -G DEB)
  debs=("$build"/loom-dev_*.deb)
  deb=${debs[-1]}
fi
deb=$(realpath "$deb")
echo "new-user-check: package $deb"
dpkg-deb --field "$deb" Package Version Depends Recommends

root=$(mktemp -d /tmp/loom-newuser.XXXXXX)
chmod 755 "$root" # it is /, which the user inside must be able to enter
cleanup() {
  for m in dev/pts dev sys proc; do
    mountpoint -q "$root/$m" && umount -l "$root/$m"
  done
  if [ "${LOOM_NEWUSER_KEEP:-0}" = 1 ]; then
    echo "new-user-check: the root is kept in $root"
  else
    rm -rf --one-file-system "$root"
  fi
}
trap cleanup EXIT

if [ -n "${LOOM_NEWUSER_BASE:-}" ]; then
  cp -a "$LOOM_NEWUSER_BASE"/. "$root"/
else
  command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap
  debootstrap --variant=minbase bookworm "$root" "$mirror"
fi
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf"
echo "deb $mirror bookworm main" > "$root/etc/apt/sources.list"
cp "$deb" "$root/tmp/"

# The user's program: saxpy, checked against a host loop. Built twice, by CMake and by pkg-config.
mkdir -p "$root/tmp/app"
cat > "$root/tmp/app/saxpy.cpp" <<'EOF'
#include <loom/loom.hpp>
#include <loom/version.hpp>

#include <cstdio>
#include <vector>

int main() {
    loom::context ctx;
    const std::size_t n = 100000;
    std::vector<float> hx(n), hy(n);
    for (std::size_t i = 0; i < n; ++i) {
        hx[i] = float(i % 100) * 0.5f;
        hy[i] = float(i % 7);
    }
    loom::vector<float> x(ctx, hx), y(ctx, hy);
    const float a = 3.0f;
    y = a * x + y;
    const std::vector<float> out = y.to_host();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (out[i] != a * hx[i] + hy[i]) ++wrong;
    std::printf("saxpy with loom %s on %s (%s): %zu elements, %zu wrong\n", loom::version(),
                ctx.device_name().c_str(), ctx.backend_name().c_str(), n, wrong);
    return wrong == 0 ? 0 : 1;
}
EOF
cat > "$root/tmp/app/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(saxpy LANGUAGES CXX)
find_package(loom REQUIRED)
message(STATUS "loom ${loom_VERSION} from ${loom_DIR}")
add_executable(saxpy saxpy.cpp)
target_link_libraries(saxpy PRIVATE loom::loom)
EOF

# Inside the root: what a user types. Only the .deb is installed by name: its Depends and
# Recommends (PoCL) must bring everything else, so a missing dependency fails here.
cat > "$root/tmp/user-path.sh" <<'EOF'
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
step() { printf '\n==== %s\n' "$*"; }
step "apt install ./$(basename /tmp/loom-dev_*.deb)"
apt-get update -qq
apt-get install -y -q /tmp/loom-dev_*.deb >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; exit 1; }
sed -n '/^The following NEW/,/^[^ ]/p' /tmp/apt.log
grep -E '^Setting up (loom-dev|pocl-opencl-icd|pkg-config|cmake|g\+\+)[: ]' /tmp/apt.log
dpkg -s loom-dev | grep -E '^(Status|Version)'
useradd -m user
cp -r /tmp/app /home/user/app && chown -R user: /home/user/app
as_user() { runuser -u user -- env HOME=/home/user bash -euo pipefail -c "cd /home/user/app && $*"; }

step "find_package(loom): cmake -S . -B build && cmake --build build && ./build/saxpy"
as_user 'cmake -S . -B build'
as_user 'cmake --build build'
as_user './build/saxpy'

step "pkg-config: g++ -std=c++17 saxpy.cpp \$(pkg-config --cflags --libs loom)"
as_user 'flags=$(pkg-config --cflags --libs loom) && echo "pkg-config --cflags --libs loom: $flags"'
as_user 'g++ -std=c++17 -O2 saxpy.cpp -o saxpy-pc $(pkg-config --cflags --libs loom)'
as_user './saxpy-pc'

step "no CUDA on this root, none needed"
if ls /usr/lib/x86_64-linux-gnu/libcuda.so* /usr/lib/x86_64-linux-gnu/libnvrtc.so* 2>/dev/null; then
  echo "a CUDA library is installed: the check is not a check" >&2
  exit 1
fi
as_user 'ldd build/saxpy saxpy-pc | grep -Ei "cuda|nvrtc" && exit 1 || echo "saxpy links no CUDA library"'

step "the tools: loom-info, loom-cache"
as_user 'loom-info'
as_user 'loom-info --version'
as_user 'loom-cache --version'
as_user 'loom-cache list'
EOF
chroot "$root" /bin/bash /tmp/user-path.sh
echo
echo "new-user-check: passed"
