#!/bin/bash
# tests/test_flags.sh -- one meaning per flag in every subcommand (README, "Flags").
# The same spellings and the same strictness everywhere, the old spellings kept as aliases
# that give the same result, exit status 2 for a usage error and 1 for a bad weight file everywhere, a position
# string that selects its own game, and Gobs moves typed with spaces.
set -u
. "$(dirname "$0")/lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# expect CODE TEXT command...: exit status CODE, and (CODE != 0) one line on stderr with TEXT
expect() {
    local want=$1 text=$2
    shift 2
    "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    [ "$rc" = "$want" ] || { bad "$*: exit $rc, expected $want ($(head -c 300 "$T/err"))"; return; }
    [ "$want" = 0 ] && return
    [ "$(wc -l <"$T/err")" = 1 ] || bad "$*: error is not one line: $(cat "$T/err")"
    grep -q -F -e "$text" "$T/err" || bad "$*: error does not say '$text': $(cat "$T/err")"
}
same() { cmp -s "$1" "$2" || bad "$3: $1 and $2 differ"; }

# --- NAME=V lists: one parser, one strictness ---------------------------------------------
expect 2 "empty item 2" "$G" selfplay --games 2 --run "$T/x" --mcts 'c_puct=1,,fpu=0'
expect 2 "empty item 2" "$G" match --a 'mcts:c_puct=1,,fpu=0' --b random --games 2
expect 2 "empty item 2" "$G" analyse --set 'c_puct=1,,fpu=0'
expect 2 "empty item 2" "$G" play --engine 'ab:depth=2,,eval=classic' </dev/null
expect 2 "'fpu' is given twice" "$G" analyse --mcts fpu=0.1,fpu=0.2
expect 2 "playouts: already set" "$G" analyse --playouts 10 --set playouts=20
expect 2 "fpu: 5 is out of range [-1, 1]" "$G" analyse --set fpu=5
expect 2 "fpu: 5 is out of range [-1, 1]" "$G" match --a mcts:fpu=5 --b random --games 2
expect 2 "--fpu: 5 is out of range [-1, 1]" "$G" analyse --fpu 5
expect 2 "unknown parameter 'cpuct'" "$G" selfplay --games 2 --run "$T/x" --set cpuct=1
# every numeric error states its range the same way
expect 2 "--threads: 0 is out of range [1, 1024]" "$G" match --a random --b random --threads 0
expect 2 "--threads: 0 is out of range [1, 1024]" "$G" analyse --threads 0
expect 2 "--threads: 0 is out of range [1, 1024]" "$G" selfplay --games 2 --run "$T/x" --threads 0
expect 2 "--threads: 0 is out of range [1, 1024]" "$G" perft 1 --threads 0
expect 2 "--top: 'x' is not an integer in [0, " "$G" analyse --top x
expect 2 "--games: 0 is out of range [1, " "$G" selfplay --games 0 --run "$T/x"

# --set, --mcts and the per-parameter flags of analyse say the same thing
"$G" analyse --playouts 200 --set c_puct=1.5,fpu=0.1 --json >"$T/a1" 2>&1 || bad "analyse --set"
"$G" analyse --playouts 200 --mcts c_puct=1.5 --set fpu=0.1 --json >"$T/a2" 2>&1 || bad "--mcts"
"$G" analyse --set playouts=200 --c-puct 1.5 --fpu 0.1 --json >"$T/a3" 2>&1 || bad "--c-puct"
for f in a1 a2 a3; do sed -E 's/"(seconds|playouts_per_s)":[0-9.]+//g' "$T/$f" >"$T/$f.s"; done
same "$T/a1.s" "$T/a2.s" "--set and --mcts"
same "$T/a1.s" "$T/a3.s" "--set and --NAME"
# prior_temperature, and its older name temperature (list and flag)
"$G" analyse --playouts 100 --set prior_temperature=2 --json | sed -E 's/"seconds[^,]*,//;s/"playouts_per_s[^,]*,//' >"$T/t1"
"$G" analyse --playouts 100 --set temperature=2 --json | sed -E 's/"seconds[^,]*,//;s/"playouts_per_s[^,]*,//' >"$T/t2"
"$G" analyse --playouts 100 --temperature 2 --json | sed -E 's/"seconds[^,]*,//;s/"playouts_per_s[^,]*,//' >"$T/t3"
same "$T/t1" "$T/t2" "temperature= is prior_temperature="
same "$T/t1" "$T/t3" "--temperature is --prior-temperature in analyse"
grep -q '"proof_actions":' "$T/a1" && grep -q '"actions":' "$T/a1" || bad "JSON: proof_actions/actions"
grep -q 'plies' "$T/a1" && bad "JSON still says plies"
# --turn-limit, and its old name --max-plies (the same option in every command)
"$G" show --position "7s/8/8/8/8/8/8/S7 w 9" --moves a1-a2 --turn-limit 10 >"$T/tl1" 2>&1 || bad "--turn-limit"
"$G" show --position "7s/8/8/8/8/8/8/S7 w 9" --moves a1-a2 --max-plies 10 >"$T/tl2" 2>&1 || bad "--max-plies"
same "$T/tl1" "$T/tl2" "--max-plies is --turn-limit"
grep -q '^result: *1/2-1/2 (turn-limit)' "$T/tl1" || bad "--turn-limit 10: no draw by the turn limit: $(tail -2 "$T/tl1")"
"$G" selfplay --games 1 --playouts 5 --turn-limit 12 --quiet --run "$T/tl3" >/dev/null 2>&1 || bad "selfplay --turn-limit"
"$G" selfplay --games 1 --playouts 5 --max-plies 12 --quiet --run "$T/tl4" >/dev/null 2>&1 || bad "selfplay --max-plies"
same "$T/tl3/manifest.gkm" "$T/tl4/manifest.gkm" "selfplay --max-plies is --turn-limit"
grep -q ' max_plies=12 ' "$T/tl3/manifest.gkm" || bad "the manifest's settings key max_plies changed"

# --- exit status: 2 usage, 1 a weight file that cannot be used ----------------------------
expect 1 "weights" "$G" match --a mcts:weights="$T/none.txt" --b random --games 2
expect 1 "weights" "$G" play --engine mcts:weights="$T/none.txt" </dev/null
expect 1 "weights" "$G" play --game gobs --engine greedy:weights="$SRC/weights/gounki-default.txt" </dev/null
expect 1 "--weights" "$G" analyse --weights "$T/none.txt"
expect 1 "--weights" "$G" selfplay --games 2 --run "$T/x" --weights "$T/none.txt"
expect 1 "--from" "$G" tune --logs "$T" --out "$T/o.txt" --from "$T/none.txt"
expect 2 "unknown player" "$G" play --engine alphabeta </dev/null

# --- run directory: --run everywhere, --out kept for selfplay ------------------------------
S=(--games 4 --playouts 30 --seed 5 --quiet)
"$G" selfplay "${S[@]}" --run "$T/r1" 2>/dev/null || bad "selfplay --run"
"$G" selfplay "${S[@]}" --out "$T/r2" 2>/dev/null || bad "selfplay --out"
"$G" log cat "$T/r1" >"$T/r1.txt"
"$G" log cat "$T/r2" >"$T/r2.txt"
same "$T/r1.txt" "$T/r2.txt" "selfplay --run and --out"
# threads= (--set), --threads-per-game: the same setting (a resume with the other is accepted)
"$G" selfplay "${S[@]}" --threads 2 --set threads=2 --run "$T/r3" 2>/dev/null || bad "--set threads=2"
"$G" selfplay "${S[@]}" --threads 2 --threads-per-game 2 --run "$T/r3" 2>/dev/null ||
    bad "--threads-per-game resumes a --set threads= run"
expect 2 "more than --threads 1" "$G" selfplay --games 2 --run "$T/x" --set threads=2
expect 2 "seed: self-play seeds" "$G" selfplay --games 2 --run "$T/x" --mcts seed=3
expect 2 "--playouts and --time exclude" "$G" selfplay --games 2 --run "$T/x" --playouts 5 --time 1
expect 2 "does not apply" "$G" selfplay --games 2 --run "$T/x" --position "x"

# --- openings: random:K | policy:K | lines:FILE | none, K = random:K, --book = lines: ------
"$G" selfplay "${S[@]}" --openings 2 --run "$T/o1" 2>/dev/null || bad "--openings 2"
"$G" selfplay "${S[@]}" --openings random:2 --run "$T/o2" 2>/dev/null || bad "--openings random:2"
"$G" log cat "$T/o1" >"$T/o1.txt"
"$G" log cat "$T/o2" >"$T/o2.txt"
same "$T/o1.txt" "$T/o2.txt" "--openings K and random:K"
printf 'gkopenings 1\ngame gounki\nf2-f3 h8-h7+\nb2-b3 a7-a6\n' >"$T/lines.txt"
M=(--a greedy --b random --games 4 --seed 3 --quiet)
"$G" match "${M[@]}" --openings 2 --pgn "$T/m1.pgn" >/dev/null || bad "match --openings 2"
"$G" match "${M[@]}" --openings random:2 --pgn "$T/m2.pgn" >/dev/null || bad "match random:2"
same "$T/m1.pgn" "$T/m2.pgn" "match --openings K and random:K"
"$G" match "${M[@]}" --book "$T/lines.txt" --pgn "$T/m3.pgn" >/dev/null || bad "match --book"
"$G" match "${M[@]}" --openings lines:"$T/lines.txt" --pgn "$T/m4.pgn" >/dev/null || bad "lines:"
same "$T/m3.pgn" "$T/m4.pgn" "match --book and --openings lines:"
grep -q 'f2-f3 h8-h7+' "$T/m4.pgn" || bad "the opening lines were not played"
"$G" match "${M[@]}" --openings none --pgn "$T/m5.pgn" >/dev/null || bad "match --openings none"
"$G" match "${M[@]}" --openings 0 --pgn "$T/m6.pgn" >/dev/null || bad "match --openings 0"
same "$T/m5.pgn" "$T/m6.pgn" "match --openings none and 0"
# --threads is the threads of the whole match: T / (a player's search threads) games at once
"$G" match --a mcts:playouts=20,threads=2 --b random --games 2 --threads 2 --quiet >"$T/mt" ||
    bad "match with 2-thread players"
grep -q ', 1 game at once' "$T/mt" || bad "--threads 2 with threads=2 players: $(grep 'at once' "$T/mt")"
"$G" match --a greedy --b random --games 4 --threads 2 --quiet >"$T/mt" || bad "match --threads 2"
grep -q ', 2 games at once' "$T/mt" || bad "--threads 2: $(grep 'at once' "$T/mt")"
expect 2 "does not play policy:K" "$G" match --a random --b random --openings policy:2
expect 2 "is not random:K" "$G" match --a random --b random --openings bogus
expect 2 "does not play lines:FILE" "$G" train --run "$T/t" --openings lines:"$T/lines.txt"

# --- the SPRT: one strict parser ------------------------------------------------------------
expect 2 "--sprt: 'nan' is not a number" "$G" match --a random --b random --sprt nan,5
expect 2 "--sprt: 'nan' is not a number" "$G" train --run "$T/t" --sprt nan,5
expect 2 "elo0 < elo1" "$G" train --run "$T/t" --sprt 5,0
expect 2 "is not ELO0,ELO1" "$G" train --run "$T/t" --sprt 5

# --- the tuner's options: one table for tune and train --------------------------------------
expect 2 "--run DIR is required" "$G" train --patience 3 --keep-scale --alpha 0.1
expect 2 "--patience: 0 is out of range [1, 100000]" "$G" train --run "$T/t" --patience 0
expect 2 "--patience: 0 is out of range [1, 100000]" "$G" tune --logs "$T" --out "$T/o" --patience 0
"$G" train --help >"$T/th" && "$G" tune --help >"$T/uh" || bad "train/tune --help"
for o in --target --loss --policy --epochs --batch --lr --l2 --patience --val --keep-scale \
    --min-positions; do
    grep -q -- "$o" "$T/th" && grep -q -- "$o" "$T/uh" || bad "$o missing from a --help"
done

# --- log cat --index I (--game I kept: a number is an index) --------------------------------
"$G" log cat "$T/r1" --index 2 >"$T/i1" || bad "log cat --index"
"$G" log cat "$T/r1" --game 2 >"$T/i2" || bad "log cat --game 2"
same "$T/i1" "$T/i2" "log cat --index I and --game I"
grep -q '^\[Round "2"\]' "$T/i1" || bad "log cat --index 2 is not game 2"
expect 2 "use --index I" "$G" log cat "$T/r1" --game gounki

# --- a position string selects its game and rule set ----------------------------------------
P='short bbbbbbbbb/bbbbbbbbb/bbbbbbbbb/9/9/9/wwwwwwwww/wwwwwwwww/wwwwwwwww w 0 - *'
"$G" show --position "$P" >"$T/s1" || bad "show --position (Gobs, short) without --game"
grep -q '^game: *gobs (short)' "$T/s1" || bad "the position did not select gobs short: $(grep game "$T/s1")"
"$G" analyse --position "$P" --playouts 50 >/dev/null || bad "analyse a Gobs position without --game"
expect 2 "for variant 'short', not 'standard'" "$G" show --position "$P" --variant standard
expect 1 "--position" "$G" show --game gounki --position "$P"
expect 1 "not a position of any game" "$G" show --position "nonsense"

# --- Gobs moves with spaces, as Gounki's --------------------------------------------------
C='standard 6bbb/7bb/9/4w4/1w7/2w1w1b2/9/9/wwwwww3 b 0 - *'
for m in "g4 d4 b4 b6 f6" "G4 : D4:b4 b6 F6" "g4:d4:b4:b6:f6"; do
    printf '%s\nquit\n' "$m" | "$G" play --position "$C" --human black --quiet-board >"$T/p" 2>&1
    grep -q 'Black plays g4:d4:b4:b6:f6' "$T/p" || bad "Gobs move '$m': $(grep -E 'plays|illegal' "$T/p")"
done
printf 'a3 a5\nquit\n' | "$G" play --game gobs --quiet-board >"$T/p" 2>&1
grep -q 'White plays a3-a5' "$T/p" || bad "Gobs move 'a3 a5': $(grep -E 'plays|illegal' "$T/p")"
printf 'a3a5\nquit\n' | "$G" play --game gobs --quiet-board >"$T/p" 2>&1
grep -q "illegal move 'a3a5'" "$T/p" || bad "'a3a5' (no separator, no space) was accepted"

[ $fail = 0 ] && echo "test_flags: all passed"
exit $fail
