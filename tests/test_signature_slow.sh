#!/bin/bash
# tests/test_signature_slow.sh -- scripts/signature.sh, the bench signature check of CI:
# a wrong expected signature fails (exit 1, saying what to write in the commit message),
# the right one passes, a tree without git history falls back to checking that two runs
# agree, misuse exits 2.  Slow: each call runs `gounki bench` twice (seconds in Release,
# a minute under the sanitizers).
set -u
. "$(dirname "$0")/lib.sh"
S="$SRC/scripts/signature.sh"

sig=$("$GOUNKI" bench --quiet | sed -n 's/^Bench: //p')
[ -n "$sig" ] || bad "no signature from gounki bench"

bash "$S" "$BUILD" $((sig + 1)) > "$T/out" 2>&1
rc=$?
[ $rc -eq 1 ] || bad "wrong expected signature: exit $rc, want 1"
grep -q "Bench: $sig' in its commit message" "$T/out" || bad "no advice: $(cat "$T/out")"

bash "$S" "$BUILD" "$sig" > "$T/out" 2>&1 || bad "right signature: exit $?: $(cat "$T/out")"
grep -q "two runs agree" "$T/out" || bad "the determinism check did not run: $(cat "$T/out")"

# A copy of the script outside any repository (a release tarball): no log to compare.
mkdir -p "$T/tree/scripts"
cp "$S" "$T/tree/scripts/"
GIT_CEILING_DIRECTORIES=$T bash "$T/tree/scripts/signature.sh" "$BUILD" > "$T/out" 2>&1 ||
    bad "no git: exit $?: $(cat "$T/out")"
grep -q "not a git repository" "$T/out" || bad "no git: not said: $(cat "$T/out")"

bash "$S" > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || bad "no build dir: exit $rc, want 2"
bash "$S" "$BUILD" 12x > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || bad "bad expected value: exit $rc, want 2"
[ $fail -eq 0 ] && echo "signature.sh checks passed (Bench: $sig)"
exit $fail
