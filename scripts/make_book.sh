#!/usr/bin/env bash
# scripts/make_book.sh -- rebuilds an opening book: self-play logs, a book of their counts,
# then drop-out expansion on local MPI ranks (docs/CLUSTER.md, README "Opening books").
#
#   bash scripts/make_book.sh                       # books/gounki.book as shipped
#   GAME=gobs VARIANT=short NODES=3000 OUT=books/gobs-short.book bash scripts/make_book.sh
#
# Every step resumes: rerun the same command after a kill and it goes on where it stopped
# (self-play keeps its finished games, the expansion its journal).  Settings by environment:
# GAME, VARIANT, GAMES (self-play games), SP_PLAYOUTS, TURNS (book turns from the logs),
# MIN_GAMES, NODES, PLAYOUTS (per search; two searches per expansion), ALPHA, WIDTH, BATCH,
# SEED, RANKS, GOUNKI (the program), WORK (logs), OUT (the book).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
GOUNKI=${GOUNKI:-$root/build/gounki}
GAME=${GAME:-gounki}
VARIANT=${VARIANT:-standard}
GAMES=${GAMES:-2000}
SP_PLAYOUTS=${SP_PLAYOUTS:-400}
TURNS=${TURNS:-10}
MIN_GAMES=${MIN_GAMES:-3}
NODES=${NODES:-100000}
PLAYOUTS=${PLAYOUTS:-400}
ALPHA=${ALPHA:-100}
WIDTH=${WIDTH:-6}
BATCH=${BATCH:-32}
SEED=${SEED:-1}
RANKS=${RANKS:-2}
OUT=${OUT:-$root/books/$GAME.book}
WORK=${WORK:-$root/out/book-$GAME-$VARIANT}
MPI=(mpirun -np "$RANKS" --oversubscribe)
[ "$(id -u)" = 0 ] && MPI+=(--allow-run-as-root)
mkdir -p "$WORK" "$(dirname "$OUT")"
GV=(--game "$GAME" --variant "$VARIANT")

echo "== $(date -u +%FT%TZ) self-play: $GAMES games at $SP_PLAYOUTS playouts into $WORK/logs"
if [ "$GAMES" -gt 0 ]; then
    "${MPI[@]}" "$GOUNKI" selfplay "${GV[@]}" --games "$GAMES" --playouts "$SP_PLAYOUTS" \
        --openings none --seed "$SEED" --no-stats --run "$WORK/logs" --quiet
fi
if [ ! -e "$OUT" ] && [ ! -e "$OUT.journal" ]; then
    echo "== $(date -u +%FT%TZ) build: turns < $TURNS, moves of >= $MIN_GAMES games"
    if [ "$GAMES" -gt 0 ]; then
        "$GOUNKI" book build --logs "$WORK/logs" --out "$OUT" --max-turns "$TURNS" \
            --min-games "$MIN_GAMES"
    else
        "$GOUNKI" book build "${GV[@]}" --out "$OUT"
    fi
fi
echo "== $(date -u +%FT%TZ) expand to $NODES nodes: $PLAYOUTS playouts a search, alpha $ALPHA, width $WIDTH, batch $BATCH, $RANKS ranks"
"${MPI[@]}" "$GOUNKI" book expand "$OUT" --nodes "$NODES" --playouts "$PLAYOUTS" \
    --alpha "$ALPHA" --width "$WIDTH" --batch "$BATCH" --seed "$SEED"
echo "== $(date -u +%FT%TZ) done"
"$GOUNKI" book stats "$OUT"
