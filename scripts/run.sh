#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: installs what is missing, builds, and runs a
# short training run on local MPI ranks (self-play -> tune -> gate -> promote, a few
# generations from deliberately poor material-only weights), ending with the Elo ladder
# and the path of its plot.
# usage: scripts/run.sh [RUN_DIR] [extra `gounki train` options]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/deps.sh
bash scripts/build.sh release "$root/build" >/dev/null
run=${1:-out/train}
shift || true
ranks=${GK_RANKS:-2}
mpi=(mpirun -np "$ranks" --bind-to none)
[ "$(id -u)" -ne 0 ] || mpi+=(--allow-run-as-root)
[ "$ranks" -le "$(nproc)" ] || mpi+=(--oversubscribe)
echo "main job: ${mpi[*]} build/gounki train --run $run ..."
"${mpi[@]}" build/gounki train --run "$run" --generations 3 --games 200 --playouts 200 \
  --match-games 100 --ladder-games 100 --policy \
  --from tests/fixtures/tune/gounki-material.txt "$@"
