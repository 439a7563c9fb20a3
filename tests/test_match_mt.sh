#!/bin/bash
# tests/test_match_mt.sh -- matches with games in parallel and with multithreaded searches
# inside parallel games (nested OpenMP); run under ThreadSanitizer by CI ("_mt").
set -u
. "$(dirname "$0")/lib.sh"
# libomp itself is not instrumented: without this TSan reports its internal locking.
export TSAN_OPTIONS="${TSAN_OPTIONS:-} ignore_noninstrumented_modules=1"
summary() { grep -E '^(result|pairs|white won|A - B)' "$1"; }

# Deterministic players: the same results with 1 and 2 games at once.
for t in 1 2; do
    "$GOUNKI" match --a mcts:playouts=150 --b ab:depth=2,eval=classic --games 6 --seed 9 \
        --threads $t --pgn "$T/g$t.pgn" > "$T/m$t.out" 2>&1 || bad "match --threads $t: $(tail -1 "$T/m$t.out")"
    summary "$T/m$t.out" > "$T/s$t"
done
[ -s "$T/s1" ] || bad "no summary"
cmp -s "$T/s1" "$T/s2" || bad "1 and 2 games at once differ"
cmp -s "$T/g1.pgn" "$T/g2.pgn" || bad "records differ between 1 and 2 games at once"

# Two-thread searches inside two parallel games, and an SPRT stop with games in flight.
"$GOUNKI" match --a mcts:playouts=150,threads=2 --b random --games 4 --threads 2 \
    > "$T/n.out" 2>&1 || bad "nested match failed: $(tail -1 "$T/n.out")"
grep -q '^result: 4 games' "$T/n.out" || bad "nested match summary missing"
"$GOUNKI" match --a greedy --b random --games 200 --threads 2 --sprt 0,200 --quiet \
    > "$T/s.out" 2>&1 || bad "sprt with parallel games failed"
grep -q 'H1 accepted' "$T/s.out" || bad "parallel SPRT did not decide"
exit $fail
