#!/bin/bash
# tests/test_solitaire_cli.sh -- `gounki solitaire`: output, exit codes, strict flags.
set -u
. "$(dirname "$0")/lib.sh"
expect_rc() { # WANT DESC ARGS...
    local want=$1 desc=$2
    shift 2
    "$GOUNKI" solitaire "$@" > "$T/out" 2> "$T/err"
    local rc=$?
    [ $rc = "$want" ] || bad "$desc: exit $rc, wanted $want ($(head -c 200 "$T/err"))"
}

CHECKER="$(dirname "$0")/solitaire_check.awk"
replay() { # DESC N [preflip [fixed [white]]]: the output in $T/out replayed apart from gounki
    local r
    r=$(awk -v n="$2" -v preflip="${3:-}" -v fixed="${4:-}" -v white="${5:-}" -f "$CHECKER" "$T/out")
    case $r in ok*) ;; *) bad "$1: independent replay: $r" ;; esac
}
# The checker must be able to fail: a solution of 3x3 --fixed e5 is no solution without it.
"$GOUNKI" solitaire 3 --fixed e5 > "$T/out" 2> /dev/null
awk -v n=3 -f "$CHECKER" "$T/out" > /dev/null && bad "checker accepted a solution of another puzzle"

expect_rc 0 "2x2" 2
replay "2x2" 2
has "$T/out" "^12\. " "2x2 prints 12 moves"
grep -q "^13\. " "$T/out" && bad "2x2 printed a 13th move"
has "$T/out" "solved in 12 moves, shortest: proven" "2x2 proof line"
has "$T/out" "^1\. [a-i][1-9]x[a-i][1-9]-[a-i][1-9]$" "move notation"
has "$T/out" "^nodes [0-9]*, time " "node count line"
# The table is sized to the problem: 2x2 (38k nodes) stays in its first megabyte instead of
# faulting in the 256 MB that --hash allows (0.2-0.8 s of page faults before).
has "$T/out" ", table 0\.[0-9] MB$" "2x2 table not sized to the problem"
if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' -o "$T/rss" "$GOUNKI" solitaire 2 > /dev/null 2>&1
    rss=$(tail -1 "$T/rss")
    [ "${rss:-999999}" -lt 65536 ] || bad "solitaire 2 peaked at ${rss} KB (wanted under 64 MB)"
fi

expect_rc 0 "3x3" 3
has "$T/out" "solved in 13 moves, shortest: proven" "3x3 length"
replay "3x3" 3
expect_rc 0 "3x3 IDA* alone" 3 --beam 0 --mirror 0
grep -q "^mirror:" "$T/out" && bad "--mirror 0 ran the palindrome finder"
has "$T/out" "solved in 13 moves, shortest: proven" "3x3 length without the finder"
expect_rc 0 "3x3 preflip" 3 --preflip e4
replay "3x3 preflip" 3 e4
has "$T/out" "^1\. e4x" "pre-flipped piece moves first"
has "$T/out" "solved in 10 moves" "3x3 pre-flipped length"
expect_rc 0 "fixed" 3 --fixed e5
has "$T/out" "solved in 8 moves" "3x3 fixed e5 length"
replay "3x3 fixed" 3 "" e5
expect_rc 0 "white start" 3 --white e5
replay "3x3 white e5" 3 "" "" e5
expect_rc 0 "4x4" 4
has "$T/out" "solved in 16 moves, shortest: proven" "4x4 length"
replay "4x4" 4
grep -q "^mirror:" "$T/out" && bad "4x4: the palindrome finder ran after a solution at the bound"
# The palindrome finder alone: 4x4 and 3x3 --white e5 have palindromic shortest solutions.
expect_rc 0 "4x4 palindrome" 4 --beam 0
has "$T/out" "^mirror: 16 moves" "4x4 found by the palindrome finder"
has "$T/out" "solved in 16 moves, shortest: proven" "4x4 palindrome length"
replay "4x4 palindrome" 4
expect_rc 0 "3x3 white palindrome" 3 --white e5 --beam 0
has "$T/out" "^mirror: 8 moves" "3x3 --white e5 found by the palindrome finder"
replay "3x3 white palindrome" 3 "" "" e5
# 2x2 has none: the finder's 12 moves stand, and the palindrome finder says how far it looked.
expect_rc 0 "2x2 no palindrome" 2
has "$T/out" "^mirror: no solution of at most 11 moves, [0-9]* nodes" "2x2 palindrome line"
# 5x5: the finder's 25 moves equal the start's lower bound (25 black pieces), so they are
# proven shortest without an IDA* iteration (beam 2000: about 1 M nodes, under a second).
expect_rc 0 "5x5" 5 --quiet --beam 2000
has "$T/out" "solved in 25 moves, shortest: proven" "5x5 length"
has "$T/out" "^finder: 25 moves" "5x5 found by the finder"
replay "5x5" 5
expect_rc 1 "no solution" 3 --preflip d4
has "$T/out" "no solution" "corner pre-flip cannot move first"
expect_rc 1 "budget" 3 --max-nodes 1000
has "$T/out" "not solved within budget: [0-9]* nodes, best lower bound [0-9]*" "budget line"

# Progress from 5x5 on: plain lines on standard error (not a terminal here), none with
# --quiet, none below 5x5.
GK_PROGRESS_EVERY=0 expect_rc 1 "5x5 with a budget" 5 --time 0.5
grep -q '^solitaire: bound [0-9]*, [0-9]* nodes, [0-9.]* M nodes/s' "$T/err" ||
    bad "5x5 shows no progress ($(head -c 200 "$T/err"))"
grep -q $'[\r\033]' "$T/err" && bad "escape codes in progress to a file"
GK_PROGRESS_EVERY=0 expect_rc 1 "5x5 quiet" 5 --time 0.2 --quiet
[ -s "$T/err" ] && bad "--quiet printed progress: $(head -1 "$T/err")"
GK_PROGRESS_EVERY=0 expect_rc 0 "2x2 again" 2
[ -s "$T/err" ] && bad "2x2 printed progress: $(head -1 "$T/err")"

expect_rc 0 "help" --help
has "$T/out" "usage: gounki solitaire" "help text"
expect_rc 2 "no N"
expect_rc 2 "N too small" 1
expect_rc 2 "N too big" 8
expect_rc 2 "N not a number" 3x
expect_rc 2 "extra argument" 3 4
expect_rc 2 "unknown flag" 3 --frobnicate
expect_rc 2 "missing value" 3 --preflip
expect_rc 2 "bad square" 3 --preflip j4
expect_rc 2 "preflip outside" 3 --preflip a1
expect_rc 2 "preflip fixed" 3 --preflip e4 --fixed e4
expect_rc 2 "bad list" 3 --fixed e5,,d4
expect_rc 2 "trailing comma" 3 --fixed e5,
expect_rc 2 "fixed twice" 3 --fixed e5 --fixed d4
expect_rc 2 "bad nodes" 3 --max-nodes -5
expect_rc 2 "bad time" 3 --time 0
expect_rc 2 "bad hash" 3 --hash 0
expect_rc 2 "bad beam" 3 --beam -1
expect_rc 2 "bad mirror" 3 --mirror -1
has "$T/err" "--mirror" "the error names --mirror"
expect_rc 2 "mirror not a number" 3 --mirror wide
expect_rc 2 "white outside" 3 --white a1
expect_rc 2 "white fixed" 3 --white e5 --fixed e5
expect_rc 2 "white bad square" 3 --white j9
expect_rc 2 "white twice" 3 --white e5 --white d4
has "$T/err" "^gounki solitaire: " "one-line error prefix"

exit $fail
