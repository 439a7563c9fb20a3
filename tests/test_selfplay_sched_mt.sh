#!/usr/bin/env bash
# The scheduler's threads (a coordinator and its workers, per rank) in every build, and
# under ThreadSanitizer in the TSan stage: 1 and 3 workers and 2 ranks x 2 workers give
# the same games; a SIGTERM in the middle of a 2-worker run stops it cleanly (exit 3,
# nothing torn) and the resume completes it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# LLVM's OpenMP runtime and Open MPI are not instrumented: their own locking reads as races.
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS }ignore_noninstrumented_modules=1"
ARGS=(--games 9 --playouts 40 --seed 21 --frame-games 2 --quiet)

"$G" selfplay "${ARGS[@]}" --threads 1 --out "$T/t1" 2>"$T/err" || fail "1 worker: $(cat "$T/err")"
"$G" selfplay "${ARGS[@]}" --threads 3 --out "$T/t3" 2>"$T/err" || fail "3 workers: $(cat "$T/err")"
mpirun --allow-run-as-root --oversubscribe -np 2 "$G" selfplay "${ARGS[@]}" --threads 2 \
    --out "$T/r2t2" 2>"$T/err" || fail "2 ranks x 2 workers: $(cat "$T/err")"
"$G" log cat "$T/t1" >"$T/t1.txt"
for d in t3 r2t2; do
    "$G" log verify --complete "$T/$d" >/dev/null || fail "$d does not verify"
    "$G" log cat "$T/$d" | cmp -s - "$T/t1.txt" || fail "$d differs from 1 worker"
done

"$G" selfplay --games 200 --playouts 200 --seed 21 --threads 2 --frame-games 2 \
    --out "$T/stop" >"$T/stop.log" 2>&1 &
pid=$!
for _ in $(seq 600); do grep -q 'to play on' "$T/stop.log" && break; sleep 0.1; done
# Signal once a frame is stored (a fixed wait depended on the speed of the search and of the
# machine: under TSan on a loaded machine one second had stored none).
for _ in $(seq 1200); do
    [ -n "$(find "$T/stop" -name 'shard-*.gkz' -size +0c 2>/dev/null)" ] && break
    sleep 0.1
done
sleep 0.2
kill -TERM $pid
set +e; wait $pid; rc=$?; set -e
[ $rc = 3 ] || { cat "$T/stop.log"; fail "SIGTERM: exit $rc, not 3"; }
"$G" log verify "$T/stop" >"$T/v.txt" || { cat "$T/v.txt"; fail "stopped run does not verify"; }
"$G" selfplay --games 12 --playouts 200 --seed 21 --threads 2 --frame-games 2 --quiet \
    --out "$T/stop" 2>"$T/err" && fail "shrinking below the stored run was accepted"
grep -q 'shrinking is not' "$T/err" || fail "no shrink message: $(cat "$T/err")"
echo "test_selfplay_sched_mt: ok ($(sed -n 's/.* \([0-9]*\) distinct.*/\1/p' "$T/v.txt") games kept at SIGTERM)"
