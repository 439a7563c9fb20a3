#!/usr/bin/env bash
# Kill/resume: a self-play run is SIGKILLed (every process of it at once, like a node
# that dies) at random moments, again and again, alternately under mpirun -np 2 and as a
# single process; twice more a shard is left with a torn tail (bytes cut off, zeros
# appended).  Each restart resumes the same DIR.  At the end DIR must hold exactly the N
# games, valid and distinct, and the very games of a run that was never interrupted.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
SEED=${KILL_SEED:-$(( $(date +%s) % 100000 ))}
RANDOM=$SEED
echo "test_selfplay_kill_slow: random seed $SEED (KILL_SEED=$SEED to repeat)"
N=50
ARGS=(--games $N --playouts 300 --seed 3 --frame-games 1 --out "$T/run")
fail() { echo "FAIL (KILL_SEED=$SEED): $*" >&2; exit 1; }
count() { { "$G" log verify "$T/run" 2>/dev/null || true; } | sed -n 's/.* \([0-9]*\) distinct.*/\1/p'; }

"$G" selfplay --games $N --playouts 300 --seed 3 --quiet --out "$T/ref" 2>"$T/err" ||
    fail "reference run: $(cat "$T/err")"

kills=0 cuts=0
for it in 1 2 3 4 5 6 7 8; do
    if [ $((it % 2)) = 1 ]; then
        setsid mpirun --allow-run-as-root --oversubscribe -np 2 "$G" selfplay "${ARGS[@]}" \
            >>"$T/log" 2>&1 &
    else
        setsid "$G" selfplay "${ARGS[@]}" >>"$T/log" 2>&1 &
    fi
    pid=$!
    sleep "$((RANDOM % 2)).$((RANDOM % 9 + 1))$((RANDOM % 10))"
    kill_session "$pid"
    kills=$((kills + 1))
    shard=$(ls "$T"/run/shard-*.gkz 2>/dev/null | head -1 || true)
    if [ -n "$shard" ] && [ -s "$shard" ] && [ "$it" = 3 ]; then
        truncate -s -5 "$shard"          # a frame cut short
        cuts=$((cuts + 1))
    fi
    if [ -n "$shard" ] && [ -s "$shard" ] && [ "$it" = 6 ]; then
        head -c 3000 /dev/zero >>"$shard" # a tail of zeros, as after a crash
        cuts=$((cuts + 1))
    fi
    c=$(count); echo "kill $it: ${c:-0} games stored"
done

"$G" selfplay "${ARGS[@]}" --quiet 2>"$T/err" || fail "final resume: $(cat "$T/err")"
"$G" log verify --complete "$T/run" >"$T/v.txt" || { cat "$T/v.txt"; fail "does not verify"; }
grep -q "$N games, $N distinct, 0 duplicates" "$T/v.txt" || { cat "$T/v.txt"; fail "not exactly $N games"; }
cmp -s <("$G" log cat "$T/run") <("$G" log cat "$T/ref") || fail "the resumed games differ from the reference"
echo "test_selfplay_kill_slow: ok ($kills kills, $cuts torn tails, $(grep -c 'cut .* bytes' "$T/log" || true) cut on resume)"
