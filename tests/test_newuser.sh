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
bad() { echo "FAIL: $*"; fail=1; }

# moves --limit N: past the limit at most N lines after the count line, plus one count.
"$G" moves --moves a1-a2+ --limit 5 > "$T/m.out" 2>&1 || bad "moves --limit 5 failed"
lines=$(wc -l < "$T/m.out")
[ "$lines" -le 7 ] || bad "moves --limit 5 printed $lines lines"
grep -q '^\.\.\. and 31 more first actions (31 complete moves)$' "$T/m.out" ||
    bad "moves --limit 5: no count of the rest ($(tail -1 "$T/m.out"))"
"$G" moves --moves a1-a2+ --limit 36 | grep -c . | grep -qx 36 || bad "moves --limit 36 does not list all 36"

exit $fail
