#!/usr/bin/env bash
# Checks a build's `gounki bench` signature against the last "Bench: N" in the commit log
# (Stockfish's tests/signature.sh): a commit that moves the signature says so in its
# message, so a signature that differs from the log is an unannounced change of the search.
# usage: scripts/signature.sh BUILD_DIR [EXPECTED]
#   Builds nothing.  Runs BUILD_DIR/gounki bench twice at one thread: the two runs must
#   agree position by position (nodes, best action, value), then the signature must equal
#   EXPECTED, or else the last "Bench: N" of `git log`.  Without git history (not a
#   repository, or a shallow clone whose commits hold no "Bench:" line) it says so and
#   checks only that the two runs agree.  Exit 0 on success, 1 on a mismatch, 2 on misuse.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-}
expected=${2:-}
if [ -z "$build" ] || [ ! -x "$build/gounki" ]; then
    echo "usage: scripts/signature.sh BUILD_DIR [EXPECTED]  (BUILD_DIR/gounki must exist)" >&2
    exit 2
fi
if [ -n "$expected" ] && ! [[ $expected =~ ^[0-9]+$ ]]; then
    echo "signature.sh: EXPECTED must be a number, not '$expected'" >&2
    exit 2
fi

# Two runs; everything but the speed figures must be equal.
run() { "$build/gounki" bench --threads 1 | sed -E 's/ +[0-9.]+ playouts\/s//; /^playouts /d'; }
a=$(run)
b=$(run)
if [ "$a" != "$b" ]; then
    echo "signature.sh: FAIL: two 1-thread bench runs differ (the search is not deterministic):"
    diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | head -20
    exit 1
fi
sig=$(printf '%s\n' "$a" | sed -n 's/^Bench: \([0-9]*\)$/\1/p')
if [ -z "$sig" ]; then
    echo "signature.sh: FAIL: no 'Bench: N' line in the output of $build/gounki bench"
    exit 1
fi

from="the command line"
if [ -z "$expected" ]; then
    if ! git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
        echo "signature.sh: $root is not a git repository: no commit log to compare with;"
        echo "signature.sh: two runs agree, Bench: $sig"
        exit 0
    fi
    # The most recent commit whose message states a signature (as Stockfish's CI reads
    # the log), and the last "Bench: N" of that message.
    commit=$(git -C "$root" log -n 1 --format=%h -E --grep='(^|[^[:alnum:]])Bench: [0-9]+' HEAD)
    expected=""
    if [ -n "$commit" ]; then
        expected=$(git -C "$root" log -n 1 --format=%B "$commit" |
                   grep -oE '(^|[^[:alnum:]])Bench: [0-9]+' | tail -n 1 | sed 's/.*Bench: //')
    fi
    if [ -z "$expected" ]; then
        shallow=$(git -C "$root" rev-parse --is-shallow-repository 2>/dev/null || echo false)
        if [ "$shallow" = true ]; then
            echo "signature.sh: shallow clone: no 'Bench: N' in the $(git -C "$root" rev-list --count HEAD) commits fetched;"
        else
            echo "signature.sh: no commit message says 'Bench: N';"
        fi
        echo "signature.sh: two runs agree, Bench: $sig (not compared)"
        exit 0
    fi
    from="commit $commit"
fi
if [ "$sig" != "$expected" ]; then
    echo "signature.sh: FAIL: Bench: $sig, but $from says Bench: $expected."
    echo "signature.sh: a change that moves the signature says so: 'Bench: $sig' in its commit message."
    exit 1
fi
echo "signature.sh: Bench: $sig, as $from says; two runs agree"
