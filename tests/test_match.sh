#!/bin/bash
# tests/test_match.sh -- `gounki match`: determinism across thread counts, records,
# SPRT early stop, Gobs, and one-line errors with exit 2 on bad input.
set -u
. "$(dirname "$0")/lib.sh"

# The summary without its timing line (time is the one thing allowed to differ).
summary() { grep -E '^(result|pairs|white won|A - B|SPRT)' "$1"; }

# 1. Same seed => same games, whatever the number of games played at once.
"$GOUNKI" match --a ab:depth=2,eval=classic --b greedy --games 12 --seed 5 --openings 3 \
    --pgn "$T/a.pgn" > "$T/a.out" 2>&1 || bad "match 1 thread failed: $(tail -1 "$T/a.out")"
"$GOUNKI" match --a ab:depth=2,eval=classic --b greedy --games 12 --seed 5 --openings 3 \
    --threads 2 --pgn "$T/b.pgn" > "$T/b.out" 2>&1 || bad "match 2 threads failed"
summary "$T/a.out" > "$T/a.sum"
summary "$T/b.out" > "$T/b.sum"
[ -s "$T/a.sum" ] || bad "no summary printed"
cmp -s "$T/a.sum" "$T/b.sum" || bad "1 and 2 threads give different results"
cmp -s "$T/a.pgn" "$T/b.pgn" || bad "1 and 2 threads give different game records"
grep -q '^result: 12 games (6 pairs)' "$T/a.out" || bad "wrong game count: $(grep result "$T/a.out")"
[ "$(grep -c '^\[Game "gounki"\]' "$T/a.pgn")" = 12 ] || bad "record file does not hold 12 games"
grep -q '^A - B: Elo' "$T/a.out" || bad "no Elo line"
# Another seed gives other openings.
"$GOUNKI" match --a ab:depth=2,eval=classic --b greedy --games 12 --seed 6 --openings 3 \
    --pgn "$T/c.pgn" > /dev/null 2>&1
cmp -s "$T/a.pgn" "$T/c.pgn" && bad "seed 6 gives the same games as seed 5"

# 2. The records replay, game by game, when the replay command exists.
if "$GOUNKI" replay --help > /dev/null 2>&1; then
    awk -v dir="$T" '/^\[Game /{n++} {print > (dir "/g" n ".txt")}' "$T/a.pgn"
    for f in "$T"/g*.txt; do
        "$GOUNKI" replay "$f" > "$T/replay.out" 2>&1 || bad "replay of $(basename "$f"): $(tail -1 "$T/replay.out")"
    done
fi

# 3. A lopsided pairing stops early under an SPRT, with H1 accepted.
"$GOUNKI" match --a ab:depth=2,eval=classic --b random --games 400 --sprt 0,100 --quiet \
    > "$T/sprt.out" 2>&1 || bad "sprt match failed"
grep -q 'H1 accepted' "$T/sprt.out" || bad "SPRT did not accept H1: $(grep SPRT "$T/sprt.out")"
pairs=$(sed -n 's/^result: [0-9]* games (\([0-9]*\) pairs).*/\1/p' "$T/sprt.out")
[ -n "$pairs" ] && [ "$pairs" -lt 200 ] || bad "SPRT did not stop early (pairs: $pairs)"
# And H0 when A is the weaker one.
"$GOUNKI" match --a random --b ab:depth=2,eval=classic --games 400 --sprt 0,100 --quiet \
    > "$T/sprt0.out" 2>&1 || bad "sprt H0 match failed"
grep -q 'H0 accepted' "$T/sprt0.out" || bad "SPRT did not accept H0"

# 4. Gobs.
"$GOUNKI" match --game gobs --a greedy:eval=classic --b random --games 4 --openings 2 \
    > "$T/gobs.out" 2>&1 || bad "gobs match failed: $(tail -1 "$T/gobs.out")"
grep -q '^result: 4 games' "$T/gobs.out" || bad "gobs match summary missing"

# 5. Bad input: exit 2 and one line naming the problem.
expect_usage() {
    local what=$1
    shift
    "$GOUNKI" match "$@" > "$T/e.out" 2> "$T/e.err"
    local rc=$?
    [ $rc = 2 ] || bad "$what: exit $rc, expected 2"
    [ "$(wc -l < "$T/e.err")" = 1 ] || bad "$what: error is not one line: $(cat "$T/e.err")"
    grep -q -e "$what" "$T/e.err" || bad "$what: error does not name it: $(cat "$T/e.err")"
}
expect_usage "dpth" --a ab:dpth=3 --b random --games 2
expect_usage "odd" --a random --b random --games 3
expect_usage "sprt" --a random --b random --games 2 --sprt 10
expect_usage "elo0 < elo1" --a random --b random --games 2 --sprt 5,0
expect_usage "--b" --a random --games 2
expect_usage "--threads" --a random --b random --games 2 --threads 0
expect_usage "--game" --a random --b random --games 2 --game chess
expect_usage "nosuch" --a mcts:nosuch=1 --b random --games 2
"$GOUNKI" match --help | grep -q 'usage: gounki match' || bad "--help"

exit $fail
