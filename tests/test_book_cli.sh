#!/usr/bin/env bash
# `gounki book`: books built from self-play logs (and merged: the same counts as one build
# from all the logs), show / stats / lines, opening lines read back by selfplay --book,
# probing through engine specs (match, analyse), self-play openings walked from a book,
# and every bad input: one line on stderr, exit 1 (bad data) or 2 (usage).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# Runs a command that must fail with status $1 and exactly one line on stderr matching $2.
bad() {
    local want=$1 pat=$2
    shift 2
    set +e
    "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    set -e
    [ $rc = "$want" ] || fail "'$*' exited $rc, not $want: $(cat "$T/err")"
    [ "$(wc -l <"$T/err")" = 1 ] || fail "'$*' did not print one line: $(cat "$T/err")"
    grep -q -- "$pat" "$T/err" || fail "'$*': '$(cat "$T/err")' does not say '$pat'"
}

"$G" selfplay --games 12 --playouts 30 --seed 1 --quiet --out "$T/A" 2>/dev/null
"$G" selfplay --games 8 --playouts 30 --seed 2 --quiet --out "$T/B" 2>/dev/null

# Build: from both logs, and from each merged; the merged book has the same counts.
"$G" book build --logs "$T/A" --logs "$T/B" --out "$T/ab.book" --max-turns 6 >"$T/out"
grep -q '20 games from 2 logs' "$T/out" || fail "build summary: $(cat "$T/out")"
"$G" book build --logs "$T/A" --out "$T/a.book" --max-turns 6 >/dev/null
"$G" book build --logs "$T/B" --out "$T/b.book" --max-turns 6 >/dev/null
"$G" book build --merge "$T/a.book" --merge "$T/b.book" --out "$T/m.book" >/dev/null
"$G" book build --logs "$T/B" --merge "$T/a.book" --out "$T/lm.book" --max-turns 6 >/dev/null
for bk in ab m lm; do
    "$G" book stats "$T/$bk.book" | grep -E '^(nodes|book moves|games) ' >"$T/$bk.stats"
done
cmp -s "$T/ab.stats" "$T/m.stats" || { diff "$T/ab.stats" "$T/m.stats"; fail "merged book differs"; }
cmp -s "$T/ab.stats" "$T/lm.stats" || fail "logs + merged book differ"
grep -q '^games       20 at the start' "$T/ab.stats" || fail "20 games at the start: $(cat "$T/ab.stats")"
"$G" book show "$T/ab.book" --json >"$T/ab.json"
"$G" book show "$T/m.book" --json >"$T/m.json"
cmp -s "$T/ab.json" "$T/m.json" || fail "show differs between the built and the merged book"
grep -q '"in_book":true' "$T/ab.json" || fail "start not in the book"
# Every game's first move is counted: the root's W+D+L sums to 20.
sum=$(sed "s/.*\"moves\":\[//" "$T/ab.json" | grep -o "\"games\":[0-9]*" | sed "s/[^0-9]//g" | paste -sd+ | bc)
[ "$sum" = 20 ] || fail "root move counts sum to $sum, not 20"
# --min-games 2 keeps fewer nodes.
"$G" book build --logs "$T/A" --logs "$T/B" --out "$T/ab2.book" --max-turns 6 --min-games 2 >"$T/out"
n1=$(sed -n 's/^nodes *//p' "$T/ab.stats")
n2=$("$G" book stats "$T/ab2.book" | sed -n 's/^nodes *//p')
[ "$n2" -lt "$n1" ] || fail "--min-games 2 kept $n2 of $n1 nodes"

# Expansion from the logs' book: the unsearched nodes first, then new nodes.
"$G" book expand "$T/ab.book" --nodes $((n1 + 40)) --playouts 40 --quiet 2>"$T/err" ||
    fail "expand: $(cat "$T/err")"
"$G" book stats "$T/ab.book" >"$T/st"
grep -q ' 0 not searched' "$T/st" || fail "expand left nodes unsearched: $(grep leaves "$T/st")"
grep -q '^provenance' "$T/st" && grep -q 'log_0 ' "$T/st" && grep -q 'expand_budget playouts 40' "$T/st" ||
    fail "provenance: $(cat "$T/st")"
n3=$(sed -n 's/^nodes *//p' "$T/st")
[ "$n3" -ge $((n1 + 40)) ] && [ "$n3" -lt $((n1 + 40 + 16)) ] || fail "node count $n3 (from $n1, --nodes $((n1 + 40)))"

# show: a position given by moves, and one not in the book.
first=$("$G" book show "$T/ab.book" | sed -n 's/^line *//p' | awk '{print $1}')
[ -n "$first" ] || fail "no principal line"
"$G" book show "$T/ab.book" --moves "$first" | grep -q '^book      node' || fail "show --moves $first"
"$G" book show "$T/ab.book" --moves "h2-h3 a7-a6 h3-h4 a6-a5 h4-h5" | grep -q 'not in the book' ||
    fail "a far position is in the book?"

# lines: an opening-line file that selfplay --book reads; balanced lines are within V.
"$G" book lines "$T/ab.book" --out "$T/lines.txt" --max-error 0.5 --total-error 1 >"$T/out"
grep -q 'lines (distinct exits)' "$T/out" || fail "lines summary: $(cat "$T/out")"
head -2 "$T/lines.txt" | tr '\n' ' ' | grep -q '^gkopenings 1 game gounki' || fail "lines header"
nl=$(grep -vc '^gkopenings\|^game\|^checksum' "$T/lines.txt")
[ "$nl" -ge 2 ] || fail "only $nl lines"
[ "$(sort "$T/lines.txt" | uniq -d | wc -l)" = 0 ] || fail "repeated lines"
"$G" selfplay --games 4 --playouts 20 --book "$T/lines.txt" --quiet --out "$T/L" 2>"$T/err" ||
    fail "selfplay --book of book lines: $(cat "$T/err")"
"$G" book lines "$T/ab.book" --out "$T/few.txt" --max-error 2 --total-error 9 --count 3 --turns 2 >/dev/null
[ "$(grep -vc '^gkopenings\|^game\|^checksum' "$T/few.txt")" = 3 ] || fail "--count 3"
"$G" book lines "$T/ab.book" --out "$T/bal.txt" --max-error 2 --total-error 9 --balanced 0.05 >/dev/null 2>&1 || true
if [ -s "$T/bal.txt" ]; then
    awk '/# exit/ { v = $(NF-3); sub(/^\+/, "", v); if (v > 0.05 || v < -0.05) exit 1 }' "$T/bal.txt" ||
        fail "--balanced 0.05 kept an exit outside: $(grep exit "$T/bal.txt" | head -3)"
fi

# Probing: A with the book plays the book's best move first as White (no random opening).
"$G" match --a "mcts:playouts=30,book=$T/ab.book" --b mcts:playouts=30 --games 2 --openings 0 \
    --pgn "$T/m.pgn" --threads 1 >/dev/null 2>&1 || fail "match with a book"
grep -m1 '^1\. ' "$T/m.pgn" | grep -q "^1\. $first " || fail "A did not open with $first: $(grep -m1 '^1\. ' "$T/m.pgn")"
"$G" analyse --playouts 50 --book "$T/ab.book" | grep -q '^opening book' || fail "analyse --book"
"$G" analyse --playouts 50 --book "$T/ab.book" --json | grep -q '"book":{"position"' || fail "analyse --book --json"

# Self-play openings walked from the book: kind book in the log, the book in the manifest.
"$G" selfplay --games 6 --playouts 20 --openings "book:$T/ab.book,0.2" --quiet --out "$T/W" 2>"$T/err" ||
    fail "selfplay --openings book: $(cat "$T/err")"
grep -q 'openings=dag:' "$T/W/manifest.gkm" || fail "manifest does not name the book"
"$G" log verify --complete "$T/W" >/dev/null || fail "book-opened games do not verify"
"$G" log stats "$T/W" | grep -Eq 'book [1-9]' || fail "no book actions in the log"

# sample: book walks and random openings, counted and valued.
"$G" book sample "$T/ab.book" --count 200 --temperature 0.2 >"$T/out"
grep -q '200 book openings: [0-9]* distinct exits' "$T/out" || fail "sample: $(cat "$T/out")"
"$G" book sample "$T/ab.book" --count 50 --random 2 --playouts 20 >"$T/out"
grep -q '50 random openings' "$T/out" && grep -q 'searched, 50 of 50' "$T/out" || fail "sample --random: $(cat "$T/out")"
"$G" book bench "$T/ab.book" --probes 20000 | grep -q 'hits .* M per CPU second' || fail "bench"

# Bad input.
cp "$T/ab.book" "$T/t.book"
head -c 100 "$T/ab.book" >"$T/short.book"
bad 1 'truncated' "$G" book show "$T/short.book"
printf 'X' | dd of="$T/t.book" bs=1 seek=70 conv=notrunc 2>/dev/null
bad 1 'checksum mismatch' "$G" book stats "$T/t.book"
echo "not a book" >"$T/text.book"
bad 1 'not an opening book' "$G" book show "$T/text.book"
bad 1 'No such file' "$G" book show "$T/missing.book"
bad 1 'a book for gounki (standard), not gobs (standard)' "$G" selfplay --game gobs --games 1 \
    --openings "book:$T/ab.book" --out "$T/x"
bad 1 'is a book for gounki' "$G" match --game gobs --a "mcts:book=$T/ab.book" --b random --games 2
bad 1 'a book for gounki (standard), not gobs (short)' "$G" analyse --game gobs --variant short \
    --playouts 10 --book "$T/ab.book"
bad 2 'show: .* is a book for gounki' "$G" book show "$T/ab.book" --game gobs
bad 2 "book_random: 'x' is not a number" "$G" match --a "mcts:book=$T/ab.book,book_random=x" --b random --games 2
bad 2 'unknown subcommand' "$G" book nope
bad 2 'which book' "$G" book show
bad 2 '\-\-nodes N is required' "$G" book expand "$T/ab.book"
bad 2 "\\-\\-peer-timeout: 'abc' is not a number" "$G" book expand "$T/ab.book" --nodes 5 --peer-timeout abc
bad 2 '\-\-peer-timeout: 0 is out of range' "$G" book expand "$T/ab.book" --nodes 5 --peer-timeout 0
bad 2 '\-\-out FILE is required' "$G" book lines "$T/ab.book"
bad 2 '\-\-out BOOK is required' "$G" book build --logs "$T/A"
bad 2 'exclude each other' "$G" book expand "$T/ab.book" --nodes 10 --playouts 5 --time 1
bad 2 'unknown parameter' "$G" book expand "$T/ab.book" --nodes 10 --mcts nope=1
bad 1 'not a legal move' "$G" book show "$T/ab.book" --moves "a1-a5"
# A journal of another book next to this one: refused, the book left as it was.
"$G" book build --out "$T/o1.book" >/dev/null
"$G" book build --out "$T/o2.book" --game gobs --variant short >/dev/null
"$G" book build --logs "$T/A" --out "$T/o3.book" --max-turns 2 >/dev/null
cp "$T/o3.book" "$T/o3.orig"
printf 'GKBJ' >"$T/o3.book.journal"; head -c 60 /dev/urandom >>"$T/o3.book.journal"
bad 1 'journal' "$G" book expand "$T/o3.book" --nodes 100 --playouts 10 --quiet
cmp -s "$T/o3.book" "$T/o3.orig" || fail "a refused journal changed the book"
rm "$T/o3.book.journal"
# The journal of another book (a run killed early) does not fit o3.
"$G" book build --out "$T/j.book" >/dev/null
setsid "$G" book expand "$T/j.book" --nodes 100000 --playouts 10 --quiet 2>/dev/null &
pid=$!
for _ in $(seq 600); do [ -s "$T/j.book.journal" ] && [ "$(stat -c %s "$T/j.book.journal")" -gt 200 ] && break; sleep 0.1; done
kill -KILL "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
cp "$T/j.book.journal" "$T/o3.book.journal"
bad 1 'belongs to another book' "$G" book expand "$T/o3.book" --nodes 100 --playouts 10 --quiet
cmp -s "$T/o3.book" "$T/o3.orig" || fail "a foreign journal changed the book"
# The Gobs short book: expanded a little, shown, probed by the short-variant engine.
"$G" book expand "$T/o2.book" --nodes 12 --playouts 20 --quiet 2>"$T/err" || fail "gobs expand: $(cat "$T/err")"
"$G" book show "$T/o2.book" | grep -q 'book      node' || fail "gobs show"
"$G" book stats "$T/o2.book" | grep -q 'gobs (short)' || fail "gobs stats"
"$G" match --game gobs --variant short --a "mcts:playouts=20,book=$T/o2.book" --b mcts:playouts=20 \
    --games 2 --openings 0 --turn-limit 30 >/dev/null 2>&1 || fail "gobs match with a book"
# Reading logs shows progress on standard error (plain lines: not a terminal).
GK_PROGRESS_EVERY=0 "$G" book build --logs "$T/A" --out "$T/p.book" --max-turns 6 >/dev/null 2>"$T/perr"
grep -q '^book build: .*: [0-9]*/[0-9]* games read$' "$T/perr" || fail "book build shows no progress"
grep -q $'[\r\033]' "$T/perr" && fail "escape codes in book build's progress to a file"
echo "test_book_cli: ok"
