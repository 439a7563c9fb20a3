#!/bin/bash
# scripts/train.sh -- a training run on local MPI ranks, then the closing evaluation.
#
#   scripts/train.sh RUN_DIR RANKS [gounki train options ...]
#
# Runs (or resumes) `gounki train --run RUN_DIR ...` on RANKS local ranks (Open MPI,
# --bind-to none so that rank 0's tuning and matches may use every core), then plays the
# best weights of the run against generation 0 and against the shipped defaults, both at
# equal playouts, and prints the Elo of each with its 95% interval.
# Environment: GOUNKI (the program, default build/gounki), EVAL_GAMES (default 400),
# EVAL_PLAYOUTS (default 300), EVAL_THREADS (games at once, default: the cores),
# GAME (gounki or gobs, default gounki; must match --game in the options).
set -euo pipefail
if [ $# -lt 2 ]; then
    sed -n '2,14p' "$0" >&2
    exit 2
fi
run=$1
ranks=$2
shift 2
G=${GOUNKI:-build/gounki}
games=${EVAL_GAMES:-400}
playouts=${EVAL_PLAYOUTS:-300}
threads=${EVAL_THREADS:-$(nproc)}
game=${GAME:-gounki}
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)

mpirun "${root[@]}" --bind-to none -np "$ranks" "$G" train --run "$run" --game "$game" "$@" |
    tee "$run.train.out"
best=$(sed -n 's/^best weights: //p' "$run.train.out" | tail -1)
[ -n "$best" ] || {
    echo "train.sh: no best weights reported" >&2
    exit 1
}
echo
echo "== best weights $best vs generation 0, $games games at $playouts playouts"
"$G" match --game "$game" --a "mcts:playouts=$playouts,weights=$best" \
    --b "mcts:playouts=$playouts,weights=$run/gen-000/weights.txt" --games "$games" \
    --threads "$threads" --quiet --seed 7 | tee "$run.vs-gen0.out"
echo
echo "== best weights $best vs the shipped defaults, $games games at $playouts playouts"
"$G" match --game "$game" --a "mcts:playouts=$playouts,weights=$best" \
    --b "mcts:playouts=$playouts" --games "$games" --threads "$threads" --quiet --seed 7 |
    tee "$run.vs-default.out"
echo
echo "ladder plot: $run/ladder.svg"
