#!/usr/bin/env bash
# tests/test_match_engine.sh -- gounki match with external engines (cmd:): the same games as built-in players, and broken engines losing by their faults.
set -u
. "$(dirname "$0")/lib.sh"
tmp=$T
moves() { grep -v '^\[White\|^\[Black' "$1"; }

# `cmd:gounki engine` at fixed playouts plays the games the built-in spec plays (same seeds),
# two games at once (one engine process per worker).
"$GOUNKI" match --a "cmd:$GOUNKI engine --playouts 150" --b mcts:playouts=150 --games 4 \
    --threads 2 --seed 5 --pgn "$tmp/cmd.pgn" >"$tmp/cmd.out" || fail "match with an engine: $(cat "$tmp/cmd.out")"
"$GOUNKI" match --a mcts:playouts=150 --b mcts:playouts=150 --games 4 --threads 2 --seed 5 \
    --pgn "$tmp/builtin.pgn" >/dev/null || fail "built-in match"
[ "$(grep -c '^\[Result' "$tmp/cmd.pgn")" -eq 4 ] || fail "expected 4 games"
diff <(moves "$tmp/cmd.pgn") <(moves "$tmp/builtin.pgn") >/dev/null ||
    fail "the engine played other moves than the built-in player: $(diff <(moves "$tmp/cmd.pgn") <(moves "$tmp/builtin.pgn") | head -5)"
# B the engine, too.
"$GOUNKI" match --a mcts:playouts=100 --b "cmd:$GOUNKI engine --set playouts=100" --games 2 \
    --threads 1 --pgn "$tmp/cmd_b.pgn" >/dev/null || fail "engine as B"
"$GOUNKI" match --a mcts:playouts=100 --b mcts:playouts=100 --games 2 --threads 1 \
    --pgn "$tmp/builtin_b.pgn" >/dev/null || fail "built-in match"
diff <(moves "$tmp/cmd_b.pgn") <(moves "$tmp/builtin_b.pgn") >/dev/null || fail "engine as B: other moves"
"$GOUNKI" replay "$tmp/cmd.pgn" >/dev/null || fail "the records do not replay"

# Broken engines lose each game by their fault, are started again for the next game, and
# the match goes on to the end (exit 0).
broken=$SRC/tests/fixtures/engines/broken.sh
check() { # mode, expected Termination start, extra flags
    local mode=$1 want=$2
    shift 2
    rm -f "$tmp/starts"
    "$GOUNKI" match --a "cmd:$broken $mode $tmp/starts" --b random --games 4 --threads 1 \
        --timeout 1 --pgn "$tmp/$mode.pgn" "$@" >"$tmp/$mode.out" 2>"$tmp/$mode.err" ||
        fail "$mode: the match did not go on: $(cat "$tmp/$mode.err")"
    [ "$(grep -c "^\[Termination \"$want" "$tmp/$mode.pgn")" -eq 4 ] ||
        fail "$mode: expected 4 games lost by '$want': $(grep Termination "$tmp/$mode.pgn")"
    grep -q "^result: 4 games (2 pairs), A: +0 =0 -4" "$tmp/$mode.out" || fail "$mode: $(cat "$tmp/$mode.out")"
    grep -q "^A (.*) lost by faults: 4 $want" "$tmp/$mode.out" || fail "$mode: summary: $(cat "$tmp/$mode.out")"
    grep -q "^game 1: A (.*) lost: $want" "$tmp/$mode.out" || fail "$mode: progress: $(cat "$tmp/$mode.out")"
    "$GOUNKI" replay "$tmp/$mode.pgn" >/dev/null || fail "$mode: the records do not replay"
}
check illegal "illegal move"
[ "$(wc -l <"$tmp/starts")" -eq 5 ] || fail "illegal: expected 5 starts (check + 4 games), got $(wc -l <"$tmp/starts")"
check exit "engine crashed"
grep -q "exited with status 3" "$tmp/exit.pgn" || fail "exit: no status in the record"
t0=$(date +%s)
check hang "engine hung"
[ $(($(date +%s) - t0)) -lt 30 ] || fail "hang: the match waited too long"
check slow "time forfeit" --tc 0.2
# Under a time control a sound engine and a built-in player finish their games on time.
"$GOUNKI" match --a "cmd:$GOUNKI engine" --b mcts --tc 0.5+0.02 --games 2 --threads 1 \
    --pgn "$tmp/tc.pgn" >"$tmp/tc.out" || fail "time control: $(cat "$tmp/tc.out")"
grep -q "lost by faults" "$tmp/tc.out" && fail "time control: a fault: $(cat "$tmp/tc.out")"
# A command that cannot run is refused before the match (exit 1).
"$GOUNKI" match --a "cmd:$tmp/nonexistent" --b random --games 2 2>"$tmp/err" >/dev/null
[ $? -eq 1 ] || fail "a missing engine must fail the match"
grep -q "player A (cmd:$tmp/nonexistent): cannot run" "$tmp/err" || fail "missing engine: $(cat "$tmp/err")"
"$GOUNKI" match --a "cmd:" --b random --games 2 2>/dev/null
[ $? -eq 2 ] || fail "an empty cmd: is a usage error"
echo ok
