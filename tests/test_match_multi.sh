#!/usr/bin/env bash
# tests/test_match_multi.sh -- gounki match with more than two players: gauntlet, round robin, the table, the Elo fit and the JSON file.
set -u
. "$(dirname "$0")/lib.sh"
tmp=$T
"$GOUNKI" match --round-robin --player greedy --player random --player ab:depth=1 --games 6 \
    --threads 2 --json "$tmp/rr.json" --pgn "$tmp/rr.pgn" >"$tmp/rr.out" || fail "round robin: $(cat "$tmp/rr.out")"
for p in "1 - 2" "1 - 3" "2 - 3"; do
    grep -q "^$p  *6 " "$tmp/rr.out" || fail "round robin: no pairing $p: $(cat "$tmp/rr.out")"
done
grep -q "^ranking (maximum-likelihood Elo" "$tmp/rr.out" || fail "no ranking"
[ "$(sed -n '/^ranking/,$p' "$tmp/rr.out" | grep -c '^[123]  ')" -eq 3 ] || fail "ranking rows: $(cat "$tmp/rr.out")"
grep -q '"mode":"round-robin"' "$tmp/rr.json" || fail "json mode: $(cat "$tmp/rr.json")"
[ "$(grep -o '"a":' "$tmp/rr.json" | wc -l)" -eq 3 ] || fail "json pairings: $(cat "$tmp/rr.json")"
grep -q '"spec":"greedy","elo":0.00,"games":12' "$tmp/rr.json" || fail "json: player 1: $(cat "$tmp/rr.json")"
[ "$(grep -c '^\[Result' "$tmp/rr.pgn")" -eq 18 ] || fail "18 games in the records"
grep -q '^\[Round "3.6"\]' "$tmp/rr.pgn" || fail "round numbers name the pairing"
"$GOUNKI" replay "$tmp/rr.pgn" >/dev/null || fail "records"
# A gauntlet: player 1 against each other one; an external engine among them.
"$GOUNKI" match --gauntlet --player mcts:playouts=50 --player random --player "cmd:$GOUNKI engine --playouts 20" \
    --games 4 --threads 1 >"$tmp/g.out" || fail "gauntlet: $(cat "$tmp/g.out")"
grep -q "^1 - 2 " "$tmp/g.out" && grep -q "^1 - 3 " "$tmp/g.out" || fail "gauntlet pairings: $(cat "$tmp/g.out")"
grep -q "^2 - 3 " "$tmp/g.out" && fail "a gauntlet has no pairing 2 - 3"
# Usage errors.
"$GOUNKI" match --gauntlet --a random --b random 2>/dev/null
[ $? -eq 2 ] || fail "--gauntlet with --a/--b"
"$GOUNKI" match --gauntlet --player random 2>/dev/null
[ $? -eq 2 ] || fail "one player"
"$GOUNKI" match --player random --player greedy 2>/dev/null
[ $? -eq 2 ] || fail "--player without --gauntlet"
"$GOUNKI" match --gauntlet --round-robin --player random --player greedy 2>/dev/null
[ $? -eq 2 ] || fail "both modes"
echo ok
