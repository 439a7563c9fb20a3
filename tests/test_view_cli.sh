#!/bin/bash
# tests/test_view_cli.sh -- show --svg/--png, replay/log export --html, train's page: files come
# out (SVG to a file or standard output, PNG through rsvg-convert), and bad input, a missing
# rsvg-convert or an unwritable path give a one-line error, a non-zero exit and no file.
set -u
. "$(dirname "$0")/lib.sh"
SRC=${SRC:?}
# expect STATUS PATTERN CMD...: exit status and a one-line error matching PATTERN
expect() {
    local want=$1 pat=$2
    shift 2
    "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    [ "$rc" = "$want" ] || bad "$* -> exit $rc, expected $want ($(cat "$T/err"))"
    [ "$(wc -l <"$T/err")" -le 1 ] || bad "$* -> more than one line of error"
    grep -q -- "$pat" "$T/err" || bad "$* -> error '$(cat "$T/err")' does not say '$pat'"
}
MOVES="a1-a2+ a8-b7+ a2-b2+ a7-b7+ b2-b4 e7-d7+ b4-c5 c7-c6 c5*d5,e5,f6"

# SVG to a file, with the usual text after it; to standard output, alone.
"$G" show --moves "$MOVES" --svg "$T/b.svg" >"$T/b.out" || bad "show --svg failed"
head -c 5 "$T/b.svg" | grep -q '<svg ' || bad "b.svg is not an SVG"
tail -1 "$T/b.svg" | grep -q '</svg>' || bad "b.svg is incomplete"
grep -q '^position:' "$T/b.out" || bad "show --svg FILE no longer prints the board"
[ "$(grep -o "<use href='#gv-d" "$T/b.svg" | wc -l)" = 3 ] || bad "the deployment's drops are not marked"
"$G" show --moves "$MOVES" --svg - >"$T/s.svg" || bad "show --svg - failed"
cmp -s "$T/s.svg" "$T/b.svg" || bad "show --svg - differs from the file"
if command -v xmllint >/dev/null; then
    xmllint --noout "$T/b.svg" || bad "b.svg is not well-formed XML"
fi
"$G" show --game gobs --variant short --svg "$T/g.svg" >/dev/null || bad "show --game gobs --svg failed"
grep -q 'Gobs (short rules)' "$T/g.svg" || bad "the Gobs variant is not named"

# Errors: a bad move, a folder that does not exist, a missing argument.
expect 1 "move 2 'zz'" "$G" show --moves "a1-a2+ zz" --svg "$T/x.svg"
[ -e "$T/x.svg" ] && bad "an SVG was written for a bad move"
expect 1 "no/such/dir" "$G" show --svg "$T/no/such/dir/x.svg"
expect 2 "svg" "$G" show --svg

# PNG: through rsvg-convert when it is there; without it a clear error and no file.
expect 1 "librsvg2-bin" env PATH=/nonexistent "$G" show --png "$T/x.png"
[ -e "$T/x.png" ] && bad "a PNG was written without rsvg-convert"
if command -v rsvg-convert >/dev/null; then
    "$G" show --moves "$MOVES" --png "$T/b.png" >/dev/null || bad "show --png failed"
    [ "$(head -c 4 "$T/b.png" | tail -c 3)" = PNG ] || bad "b.png is not a PNG"
    ls "$T" | grep -q '\.tmp\.' && bad "a temporary file was left behind"
else
    echo "note: rsvg-convert not installed; the PNG output itself is not checked"
fi

# replay --html: one game per page; a bad record writes nothing.
WIKI=$SRC/tests/fixtures/gounki/wikipedia.txt
"$G" replay "$WIKI" --quiet --html "$T/w.html" >/dev/null || bad "replay --html failed"
grep -q '<!DOCTYPE html>' "$T/w.html" || bad "w.html is not a page"
[ "$(grep -o '{"m":' "$T/w.html" | wc -l)" = 24 ] || bad "w.html does not hold 24 turns"
grep -q 'Matthieu Walraet' "$T/w.html" || bad "w.html lacks the players"
cat "$WIKI" "$WIKI" >"$T/two.txt"
expect 2 "more than one game" "$G" replay "$T/two.txt" --quiet --html "$T/two.html"
[ -e "$T/two.html" ] && bad "a page was written for a file of two games"
expect 2 "needs a file" "$G" replay "$WIKI" --html -
sed 's/c5\*d5,e5,f6/c5*d5,e5,f7/' "$WIKI" >"$T/badrec.txt"
expect 1 "turn 9" "$G" replay "$T/badrec.txt" --quiet --html "$T/bad.html"
[ -e "$T/bad.html" ] && bad "a page was written for a bad record"
expect 1 "no/such/dir" "$G" replay "$WIKI" --quiet --html "$T/no/such/dir/w.html"
ls "$T" | grep -q '\.tmp' && bad "a temporary file was left behind"

# log export --html: the page of one self-play game with its search statistics.
export LSAN_OPTIONS="suppressions=$SRC/tests/lsan-mpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
"$G" selfplay --games 2 --playouts 20 --seed 5 --quiet --out "$T/sp" >/dev/null 2>&1 || bad "selfplay failed"
"$G" log export "$T/sp" --game 1 --html "$T/g1.html" 2>"$T/err" || bad "log export --html failed: $(cat "$T/err")"
grep -q '<!DOCTYPE html>' "$T/g1.html" || bad "g1.html is not a page"
turns=$("$G" log cat "$T/sp" --game 1 | "$G" replay - | grep -c '^turn ')
[ "$(grep -o '{"m":' "$T/g1.html" | wc -l)" = "$turns" ] || bad "g1.html does not hold the game's $turns turns"
grep -q '"v":' "$T/g1.html" && grep -q '"t":' "$T/g1.html" || bad "g1.html lacks the search statistics"
grep -q 'Self-play game 1' "$T/g1.html" || bad "g1.html is not titled by the game's index"
expect 2 "give --game I" "$G" log export "$T/sp" --html "$T/all.html"
[ -e "$T/all.html" ] && bad "a page was written without --game"
expect 2 "no --out" "$G" log export "$T/sp" --game 1 --html "$T/x.html" --out "$T/x.txt"
expect 1 "no game 7" "$G" log export "$T/sp" --game 7 --html "$T/g7.html"
[ -e "$T/g7.html" ] && bad "a page was written for a game the log does not hold"
expect 1 "no/such/dir" "$G" log export "$T/sp" --game 1 --html "$T/no/such/dir/g.html"
ls "$T" | grep -q '\.tmp' && bad "a temporary file was left behind"

# gounki train: report.html beside report.txt, linking sample games of each generation.
"$G" train --run "$T/tr" --generations 2 --games 8 --playouts 16 --match-games 4 --ladder-games 4 \
    --window 1 --threads 1 --min-positions 50 --from "$SRC/tests/fixtures/tune/gounki-material.txt" \
    --quiet >"$T/tr.out" 2>&1 || bad "train failed: $(tail -3 "$T/tr.out")"
grep -q "^page: $T/tr/report.html" "$T/tr.out" || bad "train does not name its page"
grep -q '<!DOCTYPE html>' "$T/tr/report.html" || bad "no report.html beside report.txt"
grep -q "href='report.txt'" "$T/tr/report.html" || bad "report.html does not link report.txt"
for g in 001 002; do
    links=$(grep -o "href='games/gen-$g-game-[0-9]*.html'" "$T/tr/report.html" | sort -u | wc -l)
    [ "$links" = 2 ] || bad "report.html links $links sample games of generation $g, expected 2"
    for f in "$T"/tr/games/gen-$g-game-*.html; do
        grep -q '"v":' "$f" || bad "$f: a sample page without search statistics"
    done
done
ls "$T/tr" "$T/tr/games" | grep -q '\.tmp' && bad "train left a temporary file"
# its ladder plot (ladder.svg and the page): tick labels without exponents (a run that
# promoted nothing used to print -5.551e-17), a mark per rejected candidate, arrows on
# infinite bounds
rejected=$(awk 'NR > 2 && $1 ~ /^[0-9]+$/ && / no +/' "$T/tr/report.txt" | wc -l)
infs=$(awk 'NR > 2 && $1 ~ /^[0-9]+$/' "$T/tr/report.txt" | grep -c 'inf')
labels=$(grep -o "class='g[tx]'[^>]*>[^<]*<" "$T/tr/ladder.svg")
[ -n "$labels" ] || bad "ladder.svg: no tick labels"
grep -q 'e-[0-9]' <<<"$labels" && bad "ladder.svg: a tick label with an exponent"
if command -v xmllint >/dev/null; then
    xmllint --noout "$T/tr/ladder.svg" || bad "ladder.svg is not well-formed XML"
fi
[ "$(grep -o "class='rejected'" "$T/tr/ladder.svg" | wc -l)" = "$rejected" ] ||
    bad "ladder.svg: not one mark per rejected candidate ($rejected)"
[ "$(sed -n '/<svg/,/<\/svg>/p' "$T/tr/report.html" | grep -o "class='rejected'" | wc -l)" -ge "$rejected" ] ||
    bad "report.html: the ladder lacks the rejected candidates"
if [ "$infs" -gt 0 ]; then
    grep -q "class='inf'" "$T/tr/ladder.svg" || bad "ladder.svg: an infinite bound is not marked"
fi

((fail)) && exit 1
echo "view CLI checks passed"
