#!/bin/bash
# tests/test_gobs_perft.sh -- Gobs perft counts through `gounki perft`, both rule sets.
# Every number below was also obtained by the generic gen/play perft (gk_perft_generic,
# which enumerates every complete move) and, for depths 1-2 of the small positions, by the
# independent enumerator of test_gobs_reference; the 1,343,222,142-move position was
# enumerated move by move by the generic perft once (tens of minutes).
set -u
fail=0
check() { # depth expected args...
    local d=$1 want=$2
    shift 2
    local out
    out=$("$GOUNKI" perft "$d" --game gobs --max-plies 0 "$@" 2>&1)
    local got
    got=$(printf '%s\n' "$out" | sed -n "s/^perft $d: //p")
    if [ "$got" != "$want" ]; then
        echo "FAIL: perft $d $* = '$got', want $want"
        printf '%s\n' "$out" | head -3
        fail=1
    else
        echo "ok   perft $d = $want  $*"
    fi
}

# Start positions (depth 4-5 are benchmarks: 79,351,155 and 9,125,580,118 standard,
# 6,761,747 short at depth 4).
check 1 88
check 2 7655
check 3 759959
check 1 48 --variant short
check 2 2243 --variant short
check 3 124273 --variant short

# Mid-game positions with jump chains (docs/RULES.md examples and random play).
P5='standard 6bbb/7bb/9/4w4/1w7/2w1w1b2/9/9/wwwwww3 b 0 - *'
check 1 156 --position "$P5"
check 2 37193 --position "$P5"
check 3 5682122 --position "$P5"
M1='standard 6bbb/7bb/9/4w4/1w7/2wbb4/9/9/wwwwww3 b 0 d4+1 *'   # mid-turn
check 1 28 --position "$M1"
check 2 5430 --position "$M1"
check 3 861586 --position "$M1"
S1='standard 1w2w4/2bwb4/2w2b1w1/b2w5/1b3w3/w2www2b/b4w3/w1ww5/3w5 b 297 - *'
check 1 891261 --position "$S1"
Q='short 6bbb/9/9/9/1w7/2w1w1b2/1bb6/9/www6 b 0 - *'
check 1 83 --variant short --position "$Q"
check 2 6118 --variant short --position "$Q"
check 3 422455 --variant short --position "$Q"
R='short bbbbbwb1b/bbw2w3/b1bwwwwww/b1bb1w1w1/w1bww1www/bb1w1w1ww/4w2w1/bw1bb1bw1/wbbww1www b 387 - *'
check 1 20591 --variant short --position "$R"
check 2 12311173 --variant short --position "$R"
T1='short bbbbbb1bw/1b1b1bbb1/1b1b1b1w1/bbbbbb1bb/1b1b2bbb/1b1bb1w2/bb1w1ww2/bbbwwww1w/wb1w1wwww w 308 - *'
check 1 162350 --variant short --position "$T1"

# More than a billion complete moves, from random play (seed 1002452, ply 183): the
# chain counter's memo keyed on (square, flipped set) counts it in about a second.
BIG='standard b2b4b/b2w3wb/2w1w2wb/www5w/3w1www1/1w5w1/1w1w5/w3w4/1w5w1 b 183 - *'
check 1 1343222142 --position "$BIG"

# --divide: the counts per first action add up to the total.
sum=$("$GOUNKI" perft 2 --game gobs --position "$P5" --divide | awk -F': ' '/^[a-i][1-9][-x:]/ {s += $2} END {print s}')
[ "$sum" = 37193 ] || { echo "FAIL: --divide sums to $sum"; fail=1; }

# Bad input: one line, exit 1 or 2, never a crash.
for bad in 'standard 9/9 w 0' 'standard bbbbbbbbb/bbbbbbbbb/bbbbbbbbb/9/9/9/wwwwwwwww/wwwwwwwww/wwwwwwwww w 0 j9+1 *'; do
    err=$("$GOUNKI" perft 1 --game gobs --position "$bad" 2>&1 >/dev/null)
    rc=$?
    if [ $rc -ne 1 ] && [ $rc -ne 2 ]; then echo "FAIL: bad position exit $rc"; fail=1; fi
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "FAIL: error is not one line: $err"; fail=1; }
done
exit $fail
