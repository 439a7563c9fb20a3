#!/bin/bash
# tests/test_newuser.sh -- what a new user hits (issue 10): --limit bounds the lines of
# `moves`, numeric flags state their range and refuse meaningless zeros, hints name legal
# squares, and the wording of messages and summaries.
set -u
fail=0
T=${TMPDIR:-/tmp}/test_newuser.$$
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
G=${GOUNKI:?}
# Sanitizer builds: Open MPI does not free its own memory (selfplay below); its leaks are
# suppressed as in tests/lib.sh.
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
export LSAN_OPTIONS="suppressions=$SRC/tests/lsan-mpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"

# moves --limit N: past the limit at most N lines after the count line, plus one count.
"$G" moves --moves a1-a2+ --limit 5 > "$T/m.out" 2>&1 || bad "moves --limit 5 failed"
lines=$(wc -l < "$T/m.out")
[ "$lines" -le 7 ] || bad "moves --limit 5 printed $lines lines"
grep -q '^\.\.\. and 31 more first actions (31 complete moves)$' "$T/m.out" ||
    bad "moves --limit 5: no count of the rest ($(tail -1 "$T/m.out"))"
"$G" moves --moves a1-a2+ --limit 36 | grep -c . | grep -qx 36 || bad "moves --limit 36 does not list all 36"

# Numeric flags: a bad value names the flag and the range, in one line, exit 2; zero is
# refused where it means nothing (a search budget of no limit at all, a book target).
cp "$SRC/books/gobs-short.book" "$T/t.book"
range_err() { # DESC ARGS...: exit 2 and "[lo, hi]" in a one-line error
    local desc=$1
    shift
    "$G" "$@" < /dev/null > "$T/r.out" 2> "$T/r.err"
    local rc=$?
    [ $rc = 2 ] || bad "$desc: exit $rc, wanted 2 ($(head -c 200 "$T/r.err"))"
    [ "$(wc -l < "$T/r.err")" = 1 ] || bad "$desc: not one line: $(cat "$T/r.err")"
    grep -Eq -e "$want" "$T/r.err" || bad "$desc: '$(cat "$T/r.err")' lacks /$want/"
}
want='out of range \[1, 1024\]'
range_err "analyse --threads 0" analyse --threads 0
want='is out of range \[0, 4095\]'
range_err "--turn-limit 99999999999999999999" play --turn-limit 99999999999999999999
want="'x' is not an integer in \[0, 1000000000000000\]"
range_err "analyse --playouts x" analyse --playouts x
want='no budget'
range_err "analyse --playouts 0" analyse --playouts 0
range_err "analyse --time 0" analyse --time 0
range_err "bench --playouts 0" bench --playouts 0
range_err "match mcts:time=0" match --a mcts:time=0 --b random --games 2
want='--nodes: 0 is out of range \[1, [0-9]*\]'
range_err "book expand --nodes 0" book expand "$T/t.book" --nodes 0
want='--probes: 0 is out of range \[1, [0-9]*\]'
range_err "book bench --probes 0" book bench "$T/t.book" --probes 0
"$G" analyse --playouts 0 --time 0.05 > /dev/null 2>&1 || bad "--playouts 0 with --time refused"

# Files the docs name are in the repository: every inline code span that is one path
# under a top-level folder of the tree exists (a test program, `tests/test_view`, as its
# source), none is on this machine only (/work/..., shared/...); placeholders (NAME, GAME,
# ...) are skipped.
tops=$(cd "$SRC" && for d in */; do printf '%s|' "${d%/}"; done)
grep -o '`[^` ]*`' "$SRC"/README.md "$SRC"/docs/*.md | sed 's/`//g' | sort -u |
    while IFS=: read -r doc path; do
        case $path in /*) ;; *) printf '%s' "$path" | grep -Eq "^(${tops%|}|shared)/" || continue ;; esac
        printf '%s' "$path" | grep -Eq '[A-Z]{3,}|\*|\.\.\.|[<>$]' && continue
        p=${path%%#*}
        p=${p%/}
        case $p in
        /work/* | /home/* | /root/* | shared/*) ;; # a machine's files, not the repository's
        /*) continue ;;                            # a system path (/usr/bin/time)
        *)
            [ -e "$SRC/$p" ] && continue
            for ext in .c .sh; do [ -e "$SRC/$p$ext" ] && continue 2; done
            ;;
        esac
        echo "FAIL: ${doc#"$SRC"/} names $path, which is not in the repository"
        echo x >> "$T/missing"
    done
[ -e "$T/missing" ] && fail=1

# Gobs short: a capture without its placement square gets a hint whose example is legal
# (it used to be c9 always, here Black's own rank).
M='a3-a5 b7-c6 c3-d4 a7-a6 d3-e4 c7-d6 e3-g5 d7-e6 f3-f5 e7-d7 g3-e5 f7-h5 h3-f3 d7-c7 i3-h3 g7-g6 e4-f4 c7-e7 f4-g3 a8-b7 a5-c3 b8-a7 f5-g4 c8-d7 a2-a4 h8-f6 a1-a3'
err=$("$G" moves --game gobs --variant short --moves "$M h5xh3" 2>&1 >/dev/null)
hint=$(printf '%s' "$err" | grep -o 'as in h5xh3/[a-i][1-9]' | sed 's/as in //')
[ -n "$hint" ] || bad "no placement hint: $err"
[ -n "$hint" ] && { "$G" moves --game gobs --variant short --moves "$M $hint" --limit 0 > /dev/null 2>&1 ||
    bad "the hint $hint is not a legal move ($err)"; }
"$G" moves --game gobs --variant short --moves "$M a7xa5" 2>&1 >/dev/null | grep -q 'a7xa5 is not a legal elimination' ||
    bad "an impossible capture without a placement is not called illegal"

# Wording.
# A match of one pair: "1 colour-swapped pair", and Elo +0.0 (never -0.0) at 50%.
"$G" match --a random --b random --games 2 --seed 1 > "$T/w.out" 2>&1 || bad "match of 2 games failed"
grep -q '2 games as 1 colour-swapped pair,' "$T/w.out" || bad "pair count wording: $(sed -n 2p "$T/w.out")"
grep -q 'Elo -0\.0' "$T/w.out" && bad "Elo -0.0 printed: $(grep -m1 'Elo -0' "$T/w.out")"
grep -q 'Elo +0\.0' "$T/w.out" || bad "a 1-1 match does not print Elo +0.0"
# A record of one move: "after 1 move".
printf '1. b2-b3\n' > "$T/one.txt"
"$G" replay "$T/one.txt" > "$T/w.out" 2>&1
grep -q 'after 1 move$' "$T/w.out" || bad "replay of one move: $(tail -1 "$T/w.out")"
# Empty paths are quoted and named as such.
"$G" tune --logs "" --out "$T/x.txt" > /dev/null 2> "$T/w.err"
grep -q "empty directory name ''" "$T/w.err" || bad "tune --logs '': $(cat "$T/w.err")"
"$G" log stats "" > /dev/null 2> "$T/w.err"
grep -q "empty directory name ''" "$T/w.err" || bad "log stats '': $(cat "$T/w.err")"
# The path once in an error.
"$G" tune --logs /nonexistent --out "$T/x.txt" > /dev/null 2> "$T/w.err"
[ "$(grep -o /nonexistent "$T/w.err" | wc -l)" = 1 ] || bad "the path twice: $(cat "$T/w.err")"
# A random player has no value: no "(win 50.0%, 0.00 s; )".
"$G" play --human none --engine random --turn-limit 2 --quiet-board < /dev/null > "$T/w.out" 2>&1
grep -q '; )' "$T/w.out" && bad "random player prints an empty info: $(grep -m1 plays "$T/w.out")"
grep -q '^White plays [^ ]*   ([0-9.]* s)$' "$T/w.out" || bad "random player's line: $(grep -m1 plays "$T/w.out")"
# The result once at the end of a game, with the board shown (Gounki and Gobs).
for g in "--game gounki" "--game gobs --variant short"; do
    # shellcheck disable=SC2086
    "$G" play --human none --engine random --turn-limit 6 $g < /dev/null > "$T/w.out" 2>&1
    [ "$(grep -c 'game over' "$T/w.out")" = 1 ] || bad "play $g: the result $(grep -c 'game over' "$T/w.out") times"
done
# A manifest whose first line is wrong: "bad or missing first line" (not "line line").
"$G" selfplay --games 2 --playouts 10 --run "$T/sp" --quiet > /dev/null 2>&1 || bad "selfplay of 2 games"
sed -i '1s/.*/nonsense/' "$T/sp/manifest.gkm" 2>/dev/null
if [ -f "$T/sp/manifest.gkm" ]; then
    "$G" selfplay --games 2 --playouts 10 --run "$T/sp" --quiet > /dev/null 2> "$T/w.err"
    grep -q 'line line' "$T/w.err" && bad "manifest error: $(cat "$T/w.err")"
    grep -q 'bad or missing first line' "$T/w.err" || bad "manifest error: $(cat "$T/w.err")"
else
    bad "no manifest.gkm in a run directory"
fi

exit $fail
