#!/bin/bash
# tests/test_tune_cli.sh -- `gounki tune` on bad input (one-line errors, nothing written)
# and on a small real log (weights written, loadable, provenance present), for both games.
set -u
. "$(dirname "$0")/lib.sh"
# expect_error CODE PATTERN CMD...: exits with CODE, prints one stderr line matching
# PATTERN, writes no $T/out.txt.
expect_error() {
    local code=$1 pat=$2
    shift 2
    rm -f "$T/out.txt"
    "$@" >"$T/stdout" 2>"$T/stderr"
    local rc=$?
    local lines
    lines=$(wc -l <"$T/stderr")
    if [ "$rc" != "$code" ] || [ "$lines" != 1 ] || ! grep -q -- "$pat" "$T/stderr" ||
        [ -e "$T/out.txt" ]; then
        echo "FAIL: $* -> rc $rc (want $code), $lines stderr line(s):" >&2
        cat "$T/stderr" >&2
        [ -e "$T/out.txt" ] && echo "  and $T/out.txt was written" >&2
        fail=1
    fi
}

# names_once TEXT: the last error names TEXT exactly once (a path is not repeated by the
# layers it passes through) and no temporary file.
names_once() {
    if [ "$(grep -o -F -- "$1" "$T/stderr" | wc -l)" != 1 ] || grep -q '\.tmp' "$T/stderr"; then
        echo "FAIL: the error should name '$1' once:" >&2
        cat "$T/stderr" >&2
        fail=1
    fi
}

mkdir -p "$T/empty" "$T/corrupt"
head -c 4096 /dev/urandom >"$T/corrupt/shard-00000.gkz"
printf 'gkweights 1\ngame gobs\nscale 0.01\ncount 100\n' >"$T/gobs.txt"
printf 'gkweights 1\ngame gounki\nscale 0.0125\nmat_r 100\nno_such_feature 3\n' >"$T/unknown.txt"

expect_error 1 "no game logs" "$G" tune --logs "$T/empty" --out "$T/out.txt"
expect_error 1 "corrupt\|not a\|bad\|magic" "$G" tune --logs "$T/corrupt" --out "$T/out.txt"
expect_error 1 "no such\|No such\|cannot\|not found" "$G" tune --logs "$T/nothere" --out "$T/out.txt"
names_once "$T/nothere"
expect_error 1 "gobs" "$G" tune --logs "$T/empty" --from "$T/gobs.txt" --out "$T/out.txt"
expect_error 1 "no_such_feature" "$G" tune --logs "$T/empty" --from "$T/unknown.txt" \
    --out "$T/out.txt"
expect_error 2 "--out" "$G" tune --logs "$T/empty"
expect_error 2 "--lr" "$G" tune --logs "$T/empty" --out "$T/out.txt" --lr abc
expect_error 2 "--target" "$G" tune --logs "$T/empty" --out "$T/out.txt" --target bogus

# A small real log of each game.
for game in gounki gobs; do
    L="$T/logs-$game"
    if ! "$G" selfplay --game "$game" --games 6 --playouts 24 --out "$L" --quiet --seed 3 \
        >"$T/sp.out" 2>&1; then
        echo "FAIL: selfplay for $game:" >&2
        cat "$T/sp.out" >&2
        fail=1
        continue
    fi
    expect_error 1 "at least 100000" "$G" tune --game "$game" --logs "$L" --out "$T/out.txt" \
        --min-positions 100000
    # an output that cannot be written: the path the user gave, once; an empty one as ''
    expect_error 1 "does not exist" "$G" tune --game "$game" --logs "$L" --min-positions 10 \
        --epochs 1 --quiet --out "$T/nodir/out.txt"
    names_once "$T/nodir/out.txt"
    expect_error 1 "is a directory" "$G" tune --game "$game" --logs "$L" --min-positions 10 \
        --epochs 1 --quiet --out "$T/empty"
    expect_error 1 "''" "$G" tune --game "$game" --logs "$L" --min-positions 10 --epochs 1 \
        --quiet --out ''
    # ... and it is found before the logs are read and the fit runs (the logs here hold
    # too few positions: that error would come first otherwise)
    expect_error 1 "--out: .*nodir/out.txt: directory .* does not exist" "$G" tune --game "$game" \
        --logs "$L" --min-positions 100000 --out "$T/nodir/out.txt"
    names_once "$T/nodir/out.txt"
    expect_error 1 "--out: .*is a directory" "$G" tune --game "$game" --logs "$L" \
        --min-positions 100000 --out "$T/empty"
    expect_error 1 "--out: empty file name ''" "$G" tune --game "$game" --logs "$L" \
        --min-positions 100000 --out ''
    other=gobs
    [ "$game" = gobs ] && other=gounki
    expect_error 1 "is $game, not $other" "$G" tune --game "$other" --logs "$L" \
        --out "$T/out.txt"
    rm -f "$T/out.txt"
    if ! "$G" tune --game "$game" --logs "$L" --out "$T/out.txt" --min-positions 10 --epochs 3 \
        --policy --target mix:0.5 --quiet --threads 2 >"$T/tune.out" 2>&1; then
        echo "FAIL: tune on $game logs:" >&2
        cat "$T/tune.out" >&2
        fail=1
        continue
    fi
    grep -q "^provenance tuned from" "$T/out.txt" || {
        echo "FAIL: $game: no provenance line in the output weights" >&2
        fail=1
    }
    grep -q "^game $game" "$T/out.txt" || {
        echo "FAIL: $game: output weights are not for $game" >&2
        fail=1
    }
    grep -q "weights that moved most" "$T/tune.out" || {
        echo "FAIL: $game: no table of moved weights" >&2
        fail=1
    }
    grep -q "^policy loss: " "$T/tune.out" || {
        echo "FAIL: $game: --policy fitted nothing" >&2
        fail=1
    }
    # the output is a valid start for another round, and thread count does not matter
    cp "$T/out.txt" "$T/round1.txt"
    "$G" tune --game "$game" --logs "$L" --from "$T/round1.txt" --out "$T/r2a.txt" \
        --min-positions 10 --epochs 3 --quiet --threads 1 >/dev/null 2>&1 || {
        echo "FAIL: $game: second round from the tuned weights" >&2
        fail=1
    }
    "$G" tune --game "$game" --logs "$L" --from "$T/round1.txt" --out "$T/r2b.txt" \
        --min-positions 10 --epochs 3 --quiet --threads 2 >/dev/null 2>&1
    if ! diff <(grep -v '^provenance\|^checksum' "$T/r2a.txt") \
        <(grep -v '^provenance\|^checksum' "$T/r2b.txt") >/dev/null; then
        echo "FAIL: $game: 1 and 2 threads gave different weights" >&2
        fail=1
    fi
done

# Reading the logs shows progress on standard error (plain lines here: not a terminal),
# none with --quiet.
"$G" selfplay --games 20 --playouts 20 --run "$T/prog" --quiet > /dev/null 2>&1
GK_PROGRESS_EVERY=0 "$G" tune --logs "$T/prog" --out "$T/prog.txt" --min-positions 10 \
    > /dev/null 2> "$T/prog.err"
grep -q '^tune: reading the logs: 20/20 games$' "$T/prog.err" ||
    { echo "FAIL: tune shows no progress reading the logs: $(tail -1 "$T/prog.err")" >&2; fail=1; }
GK_PROGRESS_EVERY=0 "$G" tune --logs "$T/prog" --out "$T/prog.txt" --min-positions 10 --quiet \
    > /dev/null 2> "$T/prog.err"
[ -s "$T/prog.err" ] && { echo "FAIL: tune --quiet printed progress" >&2; fail=1; }
exit $fail
