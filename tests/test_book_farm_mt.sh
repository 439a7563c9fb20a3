#!/usr/bin/env bash
# The book expansion's threads (per rank a coordinator and its search threads, book_farm.h)
# in every build, and under ThreadSanitizer in the TSan stage: 1 and 3 threads, 2 ranks x 2
# threads and 3 ranks give the same book; a SIGTERM to one rank of 2 x 2 stops the run
# cleanly (exit 3 on both) and the same command completes the very book.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# LLVM's OpenMP runtime and Open MPI are not instrumented: their own locking reads as races.
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS }ignore_noninstrumented_modules=1"
MPI=(mpirun --allow-run-as-root --oversubscribe)
ARGS=(--nodes 120 --playouts 30 --seed 4 --batch 6 --quiet)
"$G" book build --out "$T/start.book" >/dev/null
run() { # NAME [mpirun -np R] ...: expands a copy of the start book
    local name=$1
    shift
    cp "$T/start.book" "$T/$name.book"
    "$@" "$T/$name.book" "${ARGS[@]}" 2>"$T/err" || fail "$name: $(cat "$T/err")"
}
run t1 "$G" book expand --threads 1
run t3 "$G" book expand --threads 3
run r2t2 "${MPI[@]}" -np 2 "$G" book expand --threads 2
run r3 "${MPI[@]}" -np 3 "$G" book expand
for b in t3 r2t2 r3; do cmp -s "$T/t1.book" "$T/$b.book" || fail "$b: another book than 1 thread"; done

# SIGTERM to rank 1 only: it tells rank 0, both finish the batch and stop.
BIG=(--nodes 100000 --playouts 200 --seed 4 --batch 6 --threads 2)
cp "$T/start.book" "$T/stop.book"
"${MPI[@]}" -np 2 "$G" book expand "$T/stop.book" "${BIG[@]}" >"$T/stop.log" 2>&1 &
pid=$!
for _ in $(seq 600); do [ -s "$T/stop.book.journal" ] && [ "$(stat -c %s "$T/stop.book.journal")" -gt 2000 ] && break; sleep 0.1; done
r1=""
for p in $(pgrep -f "book expand $T/stop.book "); do
    [ "$(readlink -f "/proc/$p/exe")" = "$(readlink -f "$G")" ] && r1="$r1 $p"
done
set -- $r1
[ $# = 2 ] || fail "not 2 ranks running: $r1"
kill -TERM "$2" # the higher pid: rank 1 as a rule; either way one rank only
set +e; wait $pid; rc=$?; set -e
[ $rc = 3 ] || { cat "$T/stop.log"; fail "SIGTERM to one rank: mpirun exit $rc, not 3"; }
grep -q '^book expand: stopped by a signal: ' "$T/stop.log" || { cat "$T/stop.log"; fail "no stop line"; }
n=$("$G" book stats "$T/stop.book" | sed -n 's/^nodes *//p')
echo "test_book_farm_mt: SIGTERM to one rank: stopped with $n nodes"
# The same command, to a smaller target that the stopped book has not reached yet, or
# past it: either way the book of one uninterrupted run to that size.
want=$((n + 60))
cp "$T/start.book" "$T/ref.book"
"$G" book expand "$T/ref.book" "${BIG[@]/100000/$want}" --quiet 2>/dev/null
"${MPI[@]}" -np 2 "$G" book expand "$T/stop.book" "${BIG[@]/100000/$want}" --quiet 2>"$T/err" ||
    fail "resume: $(cat "$T/err")"
cmp -s "$T/stop.book" "$T/ref.book" || fail "the resumed book is not the book of one run"
echo "test_book_farm_mt: ok"
