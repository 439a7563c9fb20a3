#!/bin/bash
# tests/test_selfplay_huge.sh -- selfplay --games 1000000000: memory does not grow with the
# games still to play (leases are ranges), the first game comes within seconds, SIGTERM
# stops it at once (exit 3), and the same command resumes the run.
set -u
. "$(dirname "$0")/lib.sh"
trap 'kill -KILL $pid 2>/dev/null; rm -rf "$T"' EXIT

GK_PROGRESS_EVERY=0.05 "$G" selfplay --games 1000000000 --playouts 50 --run "$T/run" \
    > "$T/out" 2>&1 &
pid=$!
# The first finished game within 60 s (about 1 s on the loaded 2-core machine).
for _ in $(seq 1 600); do
    grep -q 'selfplay: [1-9][0-9]*/1000000000 games' "$T/out" && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
done
grep -q 'selfplay: [1-9][0-9]*/1000000000 games' "$T/out" || bad "no game within 60 s: $(tail -2 "$T/out")"
# Peak memory so far: the old list of 10^9 indices reached 1 GB within 5 s.
hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null)
[ -n "$hwm" ] && [ "$hwm" -lt 204800 ] || bad "peak memory ${hwm:-?} KB (wanted under 200 MB)"
kill -TERM $pid
for _ in $(seq 1 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
    bad "still running 10 s after SIGTERM"
else
    wait $pid
    rc=$?
    [ $rc = 3 ] || bad "exit $rc after SIGTERM, wanted 3"
fi
grep -q 'selfplay: stopped by SIGTERM: ' "$T/out" || bad "no summary after SIGTERM: $(tail -2 "$T/out")"
# The same command resumes: it finds the games played.
timeout -s TERM 5 "$G" selfplay --games 1000000000 --playouts 50 --run "$T/run" > "$T/out2" 2>&1
grep -q "selfplay: $T/run: [1-9][0-9]* of 1000000000 games done" "$T/out2" ||
    bad "the run does not resume: $(head -2 "$T/out2")"
exit $fail
