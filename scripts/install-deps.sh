#!/usr/bin/env bash
# Installs what Loom needs on Debian 12 / Ubuntu, skipping what is already there.
# The CUDA toolkit is optional and not installed here (see docs/backends.md).
set -euo pipefail
packages=(cmake g++ make pkg-config pocl-opencl-icd ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers
          libboost-dev doctest-dev libxxhash-dev nlohmann-json3-dev libcli11-dev libbenchmark-dev
          python3-matplotlib clinfo clang-tidy doxygen libclblast1 libclfft-dev librandom123-dev libtbb-dev
          libopenmpi-dev openmpi-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "loom: all packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "loom: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
