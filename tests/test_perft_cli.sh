#!/bin/bash
# tests/test_perft_cli.sh -- `gounki perft`, the command: the counts of the perft data
# (tests/fixtures/perft, counts up to a million) come out of it with one thread (one
# call to the game's perft) and with two (first actions split over threads), --divide
# adds up, and bad input gets a one-line error.
set -u
fail=0
n=0
for f in "$SRC"/tests/fixtures/perft/*.epd; do
    case $f in *_slow.epd) continue ;; esac
    game=$(basename "$f" .epd)
    game=${game%%_*}
    while IFS= read -r line; do
        case $line in '#'* | '') continue ;; esac
        pos=${line%%;*}
        pos=${pos% }
        rest=";${line#*;}"
        rules=()
        [ "$game" = gobs ] && rules=(--variant "${pos%% *}") # Gobs strings name the rules
        while [[ $rest =~ ^\;D([0-9]+)\ ([0-9]+)\ *(.*)$ ]]; do
            d=${BASH_REMATCH[1]} want=${BASH_REMATCH[2]} rest=${BASH_REMATCH[3]}
            [ "$want" -le 1000000 ] || continue
            for t in 1 2; do
                got=$("$GOUNKI" perft "$d" --game "$game" "${rules[@]}" --turn-limit 0 --position "$pos" \
                      --threads $t 2>&1 | sed -n "s/^perft $d: //p")
                n=$((n + 1))
                if [ "$got" != "$want" ]; then
                    echo "FAIL: $(basename "$f"): perft $d --threads $t '$pos' = '$got', want $want"
                    fail=1
                fi
            done
        done
    done < "$f"
done
echo "$n counts through gounki perft"
[ $n -ge 40 ] || { echo "FAIL: only $n counts checked"; fail=1; }

# --divide: the counts per first action add up to the total (a Gobs mid-game position,
# and Gounki's start).
P5='standard 6bbb/7bb/9/4w4/1w7/2w1w1b2/9/9/wwwwww3 b 0 - *'
sum=$("$GOUNKI" perft 2 --game gobs --position "$P5" --divide | awk -F': ' '/^[a-i][1-9][-x:]/ {s += $2} END {print s}')
[ "$sum" = 37193 ] || { echo "FAIL: gobs --divide sums to $sum"; fail=1; }
sum=$("$GOUNKI" perft 3 --divide | awk -F': ' '/^[a-h][1-8][-x*]/ {s += $2} END {print s}')
[ "$sum" = 53892 ] || { echo "FAIL: gounki --divide sums to $sum"; fail=1; }

# Bad input: one line, exit 1 or 2, never a crash.
for bad in 'standard 9/9 w 0' 'standard bbbbbbbbb/bbbbbbbbb/bbbbbbbbb/9/9/9/wwwwwwwww/wwwwwwwww/wwwwwwwww w 0 j9+1 *'; do
    err=$("$GOUNKI" perft 1 --game gobs --position "$bad" 2>&1 >/dev/null)
    rc=$?
    if [ $rc -ne 1 ] && [ $rc -ne 2 ]; then echo "FAIL: bad position exit $rc"; fail=1; fi
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "FAIL: error is not one line: $err"; fail=1; }
done
for args in "x" "-1" "65" "1 2" "1 --threads 0"; do
    # shellcheck disable=SC2086
    err=$("$GOUNKI" perft $args 2>&1 >/dev/null)
    rc=$?
    [ $rc -eq 2 ] || { echo "FAIL: perft $args: exit $rc, want 2"; fail=1; }
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "FAIL: perft $args: $err"; fail=1; }
done
# Progress (from depth 5): plain lines on standard error when it is not a terminal (no
# carriage return, no escape code), none with --quiet, the count unchanged on stdout;
# on a terminal (script(1) gives one) lines replace each other with \r and \033[K.
P=${TMPDIR:-/tmp}/perft_progress.$$
GK_PROGRESS_EVERY=0 "$GOUNKI" perft 5 > "$P.out" 2> "$P.err"
grep -q '^perft 5: 100234880$' "$P.out" || { echo "FAIL: perft 5 with progress: $(cat "$P.out")"; fail=1; }
grep -q '^perft 5: 36/36 first actions, 100234880 leaves' "$P.err" ||
    { echo "FAIL: no final progress line: $(tail -1 "$P.err")"; fail=1; }
grep -q $'[\r\033]' "$P.err" && { echo "FAIL: escape codes in progress to a file"; fail=1; }
GK_PROGRESS_EVERY=0 "$GOUNKI" perft 5 --quiet > "$P.out" 2> "$P.err"
[ -s "$P.err" ] && { echo "FAIL: perft --quiet printed progress: $(head -1 "$P.err")"; fail=1; }
"$GOUNKI" perft 4 > "$P.out" 2> "$P.err"
[ -s "$P.err" ] && { echo "FAIL: perft 4 printed progress"; fail=1; }
if command -v script > /dev/null 2>&1; then
    GK_PROGRESS_EVERY=0 script -qec "$GOUNKI perft 5" /dev/null > "$P.tty" 2>&1
    grep -q $'\033\[K' "$P.tty" || { echo "FAIL: no terminal progress line under script(1)"; fail=1; }
fi
rm -f "$P".*
[ $fail -eq 0 ] && echo "all perft command checks passed"
exit $fail
