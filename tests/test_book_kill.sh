#!/usr/bin/env bash
# Kill/resume of `gounki book expand`: the run is SIGKILLed (every process at once, like a
# node that dies) at random moments, again and again, alternately as one process and under
# mpirun -np 2, with checkpoints every 0.3 s so that kills land before, during and after
# book rewrites and journal appends; once the journal is left with a torn record at its
# end and once with a tail of zeros.  Each restart resumes from BOOK + BOOK.journal.  The
# final book must be the very book of a run that was never interrupted, and SIGTERM must
# stop a run cleanly (exit 3) with nothing lost, at start-up too.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
SEED=${KILL_SEED:-$(( $(date +%s) % 100000 ))}
RANDOM=$SEED
echo "test_book_kill: random seed $SEED (KILL_SEED=$SEED to repeat)"
fail() { echo "FAIL (KILL_SEED=$SEED): $*" >&2; exit 1; }
ARGS=(--nodes 2500 --playouts 50 --seed 9 --batch 8 --checkpoint 0.3 --quiet)
nodes() { "$G" book stats "$1" 2>/dev/null | sed -n 's/^nodes *//p'; }

"$G" book build --out "$T/start.book" >/dev/null
cp "$T/start.book" "$T/ref.book"
"$G" book expand "$T/ref.book" "${ARGS[@]}" 2>"$T/err" || fail "reference: $(cat "$T/err")"
cp "$T/start.book" "$T/run.book"

kills=0
for it in 1 2 3 4 5 6 7; do
    if [ $((it % 2)) = 1 ]; then
        setsid "$G" book expand "$T/run.book" "${ARGS[@]}" >>"$T/log" 2>&1 &
    else
        setsid mpirun --allow-run-as-root --oversubscribe -np 2 "$G" book expand "$T/run.book" \
            "${ARGS[@]}" >>"$T/log" 2>&1 &
    fi
    pid=$!
    sleep "$((RANDOM % 2)).$((RANDOM % 9 + 1))$((RANDOM % 10))"
    kill_session "$pid"
    kills=$((kills + 1))
    j="$T/run.book.journal"
    if [ -s "$j" ] && [ "$it" = 3 ] && [ "$(stat -c %s "$j")" -gt 100 ]; then
        # A record cut short: a crash while appending one.  The copy of the first record
        # (40-byte header; magic, length, body, checksum) lacks its last 7 bytes.  Cutting
        # the file's own last record instead would be no crash's doing when the kill fell
        # between a checkpoint's book and its journal reset: the book then holds that batch,
        # and a record is appended, and fsynced, before any book holds its batch.
        len=$(od -An -t u4 -j 44 -N 4 "$j" | tr -d ' ')
        head -c $((40 + len + 16 - 7)) "$j" | tail -c $((len + 16 - 7)) >"$T/torn"
        cat "$T/torn" >>"$j"
    fi
    if [ -s "$j" ] && [ "$it" = 5 ]; then
        head -c 333 /dev/zero >>"$j" # zeros after a crash
    fi
    echo "kill $it: $(nodes "$T/run.book") nodes in the book, journal $(stat -c %s "$j" 2>/dev/null || echo 0) bytes"
done
# term_after S WHAT: SIGTERM to a run S seconds after its start; it must stop (exit 3, or 0
# when it finished first), never die of the signal (143).  Sets rc.
term_after() {
    "$G" book expand "$T/run.book" "${ARGS[@]}" >>"$T/log" 2>&1 &
    local pid=$!
    sleep "$1"
    kill -TERM "$pid" 2>/dev/null || true
    set +e
    wait "$pid"
    rc=$?
    set -e
    [ $rc = 3 ] || [ $rc = 0 ] || fail "SIGTERM $2: exit $rc: $(tail -2 "$T/log")"
}
# SIGTERM: a clean stop (exit 3) that keeps everything.
term_after 0.5 "mid-run"
if [ $rc = 3 ]; then # a stop is told in one line
    tail -1 "$T/log" | grep -q '^book expand: stopped by a signal: .*; run the same command to continue$' ||
        fail "SIGTERM: the stop is not one line: $(tail -2 "$T/log")"
fi
# SIGTERM while MPI starts up (it takes longer than 0.25 s): a stop as well.
term_after 0.25 "at start-up"
"$G" book expand "$T/run.book" "${ARGS[@]}" 2>"$T/err" || fail "final resume: $(cat "$T/err")"
cmp -s "$T/run.book" "$T/ref.book" || fail "the resumed book differs from the uninterrupted one"
[ ! -e "$T/run.book.journal" ] || fail "the journal is left after the end"
echo "test_book_kill: ok ($kills kills; $(nodes "$T/ref.book") nodes)"
