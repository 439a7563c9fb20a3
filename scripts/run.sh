#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: installs what is missing, builds, and runs a
# short training run on local MPI ranks (self-play -> tune -> gate -> promote, a few
# generations from deliberately poor material-only weights), ending with the Elo ladder
# and the path of its plot.
# usage: scripts/run.sh [--run DIR] [other `gounki train` options]
#   Every argument goes to `gounki train`, and one given there replaces this script's value
#   of the same flag (`--generations 1`, `--playouts 400`).  The run directory is out/train
#   unless `--run DIR` says otherwise.  GK_RANKS (default 2) is the number of MPI ranks;
#   GK_NO_BUILD=1 skips the installation and the build and runs $GOUNKI (tests).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# The build's progress: its percentage lines replace each other on a terminal; otherwise
# one line when it starts and one when it ends (a fresh build takes about a minute).
build() {
  local t0=$SECONDS line log
  log=$(mktemp)
  echo "main job: building build/gounki (Release; about a minute on a fresh machine)"
  if ! bash scripts/build.sh release "$root/build" 2>&1 | while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    if [ -t 1 ] && [[ $line == \[*%\]* ]]; then printf '\r%s\033[K' "${line:0:100}"; fi
  done; then
    if [ -t 1 ]; then printf '\r\033[K'; fi
    tail -n 20 "$log" >&2
    echo "main job: the build failed (the last lines above)" >&2
    exit 1
  fi
  if [ -t 1 ]; then printf '\r\033[K'; fi
  rm -f "$log"
  echo "main job: built in $((SECONDS - t0)) s"
}
if [ "${GK_NO_BUILD:-0}" != 1 ]; then
  bash scripts/deps.sh
  build
  GOUNKI=build/gounki
fi
prog=${GOUNKI:-build/gounki}
# This script's settings, each replaced by the same flag given on the command line.
defaults=(--run out/train --generations 3 --games 200 --playouts 200 --match-games 100
  --ladder-games 100 --policy --from tests/fixtures/tune/gounki-material.txt)
given=" "
for a in "$@"; do
  case $a in --*) given+="${a%%=*} " ;; esac
done
args=()
i=0
while [ $i -lt ${#defaults[@]} ]; do
  flag=${defaults[$i]}
  i=$((i + 1))
  vals=()
  if [ $i -lt ${#defaults[@]} ] && [[ ${defaults[$i]} != --* ]]; then
    vals=("${defaults[$i]}")
    i=$((i + 1))
  fi
  [[ $given == *" $flag "* ]] || args+=("$flag" "${vals[@]}")
done
args+=("$@")
ranks=${GK_RANKS:-2}
mpi=(mpirun -np "$ranks" --bind-to none)
[ "$(id -u)" -ne 0 ] || mpi+=(--allow-run-as-root)
[ "$ranks" -le "$(nproc)" ] || mpi+=(--oversubscribe)
echo "main job: ${mpi[*]} $prog train ${args[*]}"
"${mpi[@]}" "$prog" train "${args[@]}"
