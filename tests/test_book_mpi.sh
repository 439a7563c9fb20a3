#!/usr/bin/env bash
# `gounki book expand` under mpirun: the same book, byte for byte, from 1, 2 and 4 ranks,
# from 2 threads and from 2 ranks x 2 threads, for a book grown from the start position and
# for one built from logs (its nodes searched first); a run extended to more nodes equals a
# run made to that size at once; a rerun of a finished run changes nothing; Gobs (short).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
MPI=(mpirun --allow-run-as-root --oversubscribe)

"$G" book build --out "$T/start.book" >/dev/null
"$G" selfplay --games 6 --playouts 20 --quiet --out "$T/logs" 2>/dev/null
"$G" book build --logs "$T/logs" --out "$T/logs.book" --max-turns 4 >/dev/null 2>&1
"$G" book build --out "$T/gobs.book" --game gobs --variant short >/dev/null

check() { # BASE NAME RANKS ARGS...: expand copies of BASE in every layout, all equal
    local base=$1 name=$2 ranks=$3
    shift 3
    cp "$T/$base.book" "$T/$name-solo.book"
    "$G" book expand "$T/$name-solo.book" "$@" --quiet 2>"$T/err" || fail "$name solo: $(cat "$T/err")"
    for np in $ranks; do
        cp "$T/$base.book" "$T/$name-np$np.book"
        "${MPI[@]}" -np $np "$G" book expand "$T/$name-np$np.book" "$@" --quiet 2>"$T/err" ||
            fail "$name np $np: $(cat "$T/err")"
        cmp -s "$T/$name-solo.book" "$T/$name-np$np.book" || fail "$name: $np ranks give another book"
    done
    cp "$T/$base.book" "$T/$name-t2.book"
    "$G" book expand "$T/$name-t2.book" "$@" --threads 2 --quiet 2>/dev/null
    cmp -s "$T/$name-solo.book" "$T/$name-t2.book" || fail "$name: 2 threads give another book"
    cp "$T/$base.book" "$T/$name-np2t2.book"
    "${MPI[@]}" -np 2 "$G" book expand "$T/$name-np2t2.book" "$@" --threads 2 --quiet 2>/dev/null
    cmp -s "$T/$name-solo.book" "$T/$name-np2t2.book" || fail "$name: 2 ranks x 2 threads differ"
    [ ! -e "$T/$name-solo.book.journal" ] || fail "$name: a finished run left its journal"
}
check start start "1 2 4" --nodes 300 --playouts 30 --seed 5
check logs logs "2" --nodes 150 --playouts 20 --batch 7 --alpha 30
check gobs gobs "2" --nodes 30 --playouts 20

n=$("$G" book stats "$T/start-solo.book" | sed -n 's/^nodes *//p')
[ "$n" -ge 300 ] && [ "$n" -lt 316 ] || fail "--nodes 300 gave $n nodes"
"$G" book stats "$T/logs-solo.book" | grep -q ' 0 not searched' || fail "log nodes left unsearched"

# A finished run again: nothing changes.  Extended: the book of a run made that size at once.
cp "$T/start-solo.book" "$T/again.book"
"$G" book expand "$T/again.book" --nodes 300 --playouts 30 --seed 5 --quiet 2>/dev/null
cmp -s "$T/again.book" "$T/start-solo.book" || fail "a rerun of a finished run changed the book"
"${MPI[@]}" -np 2 "$G" book expand "$T/again.book" --nodes 500 --playouts 30 --seed 5 --quiet 2>/dev/null
cp "$T/start.book" "$T/direct.book"
"$G" book expand "$T/direct.book" --nodes 500 --playouts 30 --seed 5 --quiet 2>/dev/null
cmp -s "$T/again.book" "$T/direct.book" || fail "300 then 500 nodes differs from 500 at once"
# Another seed gives another book.
cp "$T/start.book" "$T/seed6.book"
"$G" book expand "$T/seed6.book" --nodes 300 --playouts 30 --seed 6 --quiet 2>/dev/null
! cmp -s "$T/seed6.book" "$T/start-solo.book" || fail "the seed does not matter?"
# A time budget runs (not reproducible, so not compared).
cp "$T/start.book" "$T/time.book"
"${MPI[@]}" -np 2 "$G" book expand "$T/time.book" --nodes 50 --time 0.002 --quiet 2>"$T/err" ||
    fail "--time: $(cat "$T/err")"
"$G" book stats "$T/time.book" | grep -q 'expand_budget seconds 0.002' || fail "time budget provenance"
echo "test_book_mpi: ok"
