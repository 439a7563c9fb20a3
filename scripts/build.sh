#!/usr/bin/env bash
# Configures and builds one flavour of gounki.
# usage: scripts/build.sh [release|asan|tsan] [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:-release}
case $flavour in
  release) dir=${2:-$root/build}
           cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DGK_WERROR=ON \
                 -DGK_ASSERTS=OFF >/dev/null ;;
  asan)    dir=${2:-$root/build-asan}
           cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGK_WERROR=ON \
                 -DGK_ASSERTS=ON -DGK_SANITIZE=address,undefined >/dev/null ;;
  tsan)    # clang + LLVM's libomp: its Archer tool tells TSan about OpenMP's own
           # synchronisation, which GCC's libgomp does not (false reports otherwise).
           dir=${2:-$root/build-tsan}
           CC=clang cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGK_WERROR=ON \
                 -DGK_ASSERTS=ON -DGK_SANITIZE=thread >/dev/null ;;
  *) echo "usage: scripts/build.sh [release|asan|tsan] [BUILD_DIR]" >&2; exit 2 ;;
esac
cmake --build "$dir" -j"$(nproc)"
echo "$dir"
