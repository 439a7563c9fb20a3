#!/usr/bin/env bash
# tests/test_engine_mt.sh -- gounki engine's search thread against its reader (stop, quit, isready, refused commands, EOF), with a two-thread search; run under TSan too.
set -u
. "$(dirname "$0")/lib.sh"
tmp=$T
for round in 1 2 3; do
    out=$( (printf 'setoption name threads value 2\nsetoption name info_interval value 50\ngame gounki\ngo infinite\n'
        sleep 0.3
        printf 'isready\nposition startpos\nshow\ngep\nstop\nisready\n'
        sleep 0.2
        printf 'position startpos moves c2-d3\ngo movetime 200\n'
        sleep 0.05
        printf 'stop\n'
        sleep 0.3
        printf 'go playouts 300\n'
        sleep 0.3
        printf 'go infinite\nquit\n') | "$GOUNKI" engine 2>"$tmp/err")
    rc=$?
    [ $rc -eq 0 ] || fail "round $round: exit $rc: $(cat "$tmp/err")"
    # Three searches end with a bestmove (stop, stop, budget); the last is ended by quit
    # without one.  The position sent during the first search is the one error.
    [ "$(grep -c '^bestmove ' <<<"$out")" -eq 3 ] || fail "round $round: bestmoves: $out"
    [ "$(grep -c '^error' <<<"$out")" -eq 1 ] || fail "round $round: errors: $out"
    grep -q "^error position: a search is running" <<<"$out" || fail "round $round: position during a search"
    [ "$(grep -c '^readyok' <<<"$out")" -eq 2 ] || fail "round $round: readyok"
    [ -s "$tmp/err" ] && fail "round $round: stderr: $(cat "$tmp/err")"
done
echo ok
