#!/bin/bash
# tests/test_solitaire_split.sh -- `gounki solitaire --threads T` and under mpirun: the same
# solution and proof as the serial search, printed once, replayed by the independent checker.
set -u
. "$(dirname "$0")/lib.sh"
MPI=(mpirun --allow-run-as-root --oversubscribe)
CHECKER="$(dirname "$0")/solitaire_check.awk"
moves() { grep -E '^[0-9]+\. |^solved|^best|^not solved|^no solution' "$1"; }

run() { # NAME WANT_RC [mpirun -np R] gounki ARGS...: output in $T/NAME
    local name=$1 want=$2
    shift 2
    "$@" > "$T/$name" 2> "$T/$name.err"
    local rc=$?
    [ $rc = "$want" ] || bad "$name: exit $rc, wanted $want ($(head -c 300 "$T/$name.err"))"
}

# 3x3 by IDA* alone (bound 11, then 13) and 4x4 (one iteration that finds 16).
for p in "3" "4"; do
    run "serial$p" 0 "$G" solitaire $p --beam 0 --mirror 0
    run "threads$p" 0 "$G" solitaire $p --beam 0 --mirror 0 --threads 2
    run "ranks$p" 0 "${MPI[@]}" -np 2 "$G" solitaire $p --beam 0 --mirror 0 --threads 2
    for v in threads ranks; do
        [ "$(moves "$T/$v$p")" = "$(moves "$T/serial$p")" ] ||
            bad "$p x $p, $v: not the serial search's solution and verdict"
        r=$(awk -v n="$p" -f "$CHECKER" "$T/$v$p")
        case $r in ok*) ;; *) bad "$p x $p, $v: independent replay: $r" ;; esac
        [ "$(grep -c '^Gobs solitaire' "$T/$v$p")" = 1 ] || bad "$p x $p, $v: printed more than once"
    done
    has "$T/threads$p" "^proof split: 1 rank x 2 threads, last frontier [0-9]* positions at depth [0-9]*$" "threads line"
    has "$T/ranks$p" "^proof split: 2 ranks x 2 threads" "ranks line"
    grep -q "^proof split" "$T/serial$p" && bad "the serial search printed a split line"
done
has "$T/ranks3" "solved in 13 moves, shortest: proven" "3x3 on 2 ranks"

# The finders run on every rank, then the proof: the 3x3 of the README, 3 ranks.
run serial 0 "$G" solitaire 3
run ranks 0 "${MPI[@]}" -np 3 "$G" solitaire 3
[ "$(moves "$T/ranks")" = "$(moves "$T/serial")" ] || bad "3x3 with finders, 3 ranks: differs"

# A node budget counts every rank's nodes: not solved, the start's bound, exit 1.
run budget 1 "${MPI[@]}" -np 2 "$G" solitaire 7 --preflip e3 --beam 0 --mirror 0 --max-nodes 300000
has "$T/budget" "^not solved within budget: [0-9]* nodes, best lower bound 48$" "budget line"
n=$(sed -n 's/^nodes \([0-9]*\),.*/\1/p' "$T/budget")
[ "${n:-0}" -ge 300000 ] && [ "${n:-0}" -lt 500000 ] || bad "2 ranks under --max-nodes 300000 counted ${n:-none} nodes"

# Bad values are usage errors, with one line naming the flag.
for v in 0 -1 x 1025; do
    run "bad$v" 2 "$G" solitaire 3 --threads "$v"
    has "$T/bad$v.err" "threads" "--threads $v error names the flag"
    [ "$(wc -l < "$T/bad$v.err")" = 1 ] || bad "--threads $v: more than one error line"
done
exit $fail
