#!/usr/bin/env bash
# tests/test_match_book.sh -- `gounki match --book`: every pair opens with a book line
# (both games of a pair the same line), bad books and non-start positions are refused.
set -u
. "$(dirname "$0")/lib.sh"
printf 'gkopenings 1\ngame gounki\nf2-f3 h8-h7+\na1-b1+ c8-b7+ e2-d3\nb2-b3 a7-a6\n' > "$T/book.txt"
"$GOUNKI" match --a mcts:playouts=50 --b greedy --games 6 --book "$T/book.txt" --threads 1 \
  --quiet --pgn "$T/m.txt" > "$T/out" 2>&1 || fail "match with a book: $(cat "$T/out")"
"$GOUNKI" replay "$T/m.txt" > /dev/null 2>&1 || fail "match records do not replay"
grep -E '^1\. ' "$T/m.txt" | cut -d' ' -f2,3 | sort | uniq -c | awk '{print $1}' | sort -u > "$T/c"
[ "$(cat "$T/c")" = "2" ] || fail "each line should open exactly one pair: $(grep -E '^1\. ' "$T/m.txt")"
for first in "f2-f3 h8-h7+" "a1-b1+ c8-b7+" "b2-b3 a7-a6"; do
  grep -q "^1\. $first" "$T/m.txt" || fail "book line '$first' not played"
done
printf 'gkopenings 1\ngame gounki\ne2-e3\n' > "$T/bad.txt"
"$GOUNKI" match --a random --b random --games 2 --book "$T/bad.txt" 2> "$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "bad.txt:3: 'e2-e3': not a legal move" "$T/err" || fail "illegal book line: rc $rc $(cat "$T/err")"
"$GOUNKI" match --a random --b random --games 2 --book "$T/nope.txt" 2> "$T/err"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$T/err")" -eq 1 ] || fail "missing book: rc $rc"
"$GOUNKI" match --a random --b random --games 2 --book "$T/book.txt" --moves a1-b1+ 2> "$T/err"; rc=$?
[ $rc -eq 2 ] || fail "book from a non-start position accepted (rc $rc)"
echo "test_match_book: ok"
