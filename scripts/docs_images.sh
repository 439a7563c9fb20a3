#!/usr/bin/env bash
# Makes the pictures of docs/img/ with the program: the boards with `gounki show --png`, a game
# page and the training page as headless Chromium screenshots of the pages the program writes.
# usage: scripts/docs_images.sh [BUILD_DIR]     (needs chromium and rsvg-convert: scripts/deps.sh;
# about a minute: it plays a small training run on 2 MPI ranks)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$root/build}
G=$B/gounki
out=$root/docs/img
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
shot() { # shot URL PNG WIDTH HEIGHT
    chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --hide-scrollbars --user-data-dir="$tmp/profile" --screenshot="$2" --window-size="$3,$4" \
        "$1" 2>/dev/null
}

# The Wikipedia game (docs/RULES.md, seed 002) before White's 10th move: Black's deployment
# with rebound b4*a3,b2,a2 just played; stacks of one, two and three pieces of both sides.
"$G" show --png "$out/board-gounki.png" --moves "a1-a2+ a8-b7+ a2-b2+ a7-b7+ b2-b4 e7-d7+ \
b4-c5 c7-c6 c5*d5,e5,f6 g7-f7+ f6-e7 f7xe7 d1-e2+ b7-b5 f1-e2+ b5-b4 d2-c2+ b4*a3,b2,a2" >/dev/null
# The seed's Gobs jump chain (docs/RULES.md, Gobs rule 2): four pieces turned over.
"$G" show --game gobs --png "$out/board-gobs.png" >/dev/null \
    --position "standard 6bbb/7bb/9/4w4/1w7/2w1w1b2/9/9/wwwwww3 b 0 - *" --moves "g4:d4:b4:b6:f6"

# A self-play game with its search statistics, at White's deployment of turn 19.
mkdir -p "$tmp/pages"
"$B/tests/test_view" --write "$tmp/pages" >/dev/null
shot "file://$tmp/pages/log-gounki.html#turn=19" "$out/game-page.png" 1000 1000

# The training page of a small real run (6 generations from material-only weights).
args=(--generations 6 --games 120 --playouts 100 --match-games 40 --ladder-games 40 --window 2
    --threads 1 --min-positions 100 --from "$root/tests/fixtures/tune/gounki-material.txt")
mpirun --oversubscribe --bind-to none -np 2 "$G" train --run "$tmp/run" "${args[@]}" --quiet \
    >/dev/null
"$B/tests/test_view" --train "$tmp/run" "$tmp/train" "gounki train ${args[*]/#$root\//} (2 ranks)"
shot "file://$tmp/train/report.html" "$out/training-page.png" 1320 720
ls -l "$out"
