#!/bin/bash
# tests/test_run_script.sh -- scripts/run.sh passes its arguments to `gounki train` (a flag
# given replaces the script's value of it; the run directory only as --run DIR), and a
# tiny run through it ends with the ladder.
set -u
. "$(dirname "$0")/lib.sh"
export GK_NO_BUILD=1 GOUNKI=${GOUNKI:?} GK_RANKS=1
bash "$SRC/scripts/run.sh" --run "$T/r" --generations 1 --games 8 --playouts 16 \
    --match-games 4 --ladder-games 4 --threads 1 --min-positions 50 --quiet > "$T/out" 2>&1
rc=$?
[ $rc = 0 ] || bad "run.sh --run DIR --generations 1 ... exited $rc: $(tail -3 "$T/out")"
grep -q "^main job: .* train --policy --from .* --run $T/r --generations 1 " "$T/out" ||
    bad "the command line was not built from the arguments: $(grep '^main job' "$T/out")"
[ -d "$T/r/gen-001" ] && [ ! -d "$T/r/gen-002" ] || bad "--generations 1 did not make one generation in --run DIR"
[ -d "$SRC/--generations" ] && bad "a directory named --generations was made"
grep -q "^plot: $T/r/ladder.svg" "$T/out" || bad "no ladder plot: $(tail -3 "$T/out")"
# --quiet: the report starts right after the command line, with no blank line before it.
[ -n "$(sed -n 2p "$T/out")" ] || bad "a blank line in --quiet output: $(head -3 "$T/out")"
exit $fail
