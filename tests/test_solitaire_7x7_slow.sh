#!/bin/bash
# tests/test_solitaire_7x7_slow.sh -- `gounki solitaire 7 --white e5` proven in 48 moves.
# Slow (about 35 s in Release, 2 min under ASan, which skips it): the palindrome finder's
# code is covered there by the small cases of test_solitaire_cli.sh.
set -u
. "$(dirname "$0")/lib.sh"
CHECKER="$(dirname "$0")/solitaire_check.awk"

# 7x7 with the centre left white (the seed's variant): the beam finder finds nothing, the
# palindrome finder 48 moves, the start's lower bound, so shortest (220 MB).
"$GOUNKI" solitaire 7 --white e5 --quiet > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 0 ] || bad "7x7 white e5: exit $rc, wanted 0 ($(head -c 200 "$T/err"))"
has "$T/out" "^mirror: 48 moves" "7x7 --white e5 found by the palindrome finder"
has "$T/out" "solved in 48 moves, shortest: proven" "7x7 --white e5 length"
r=$(awk -v n=7 -v preflip= -v fixed= -v white=e5 -f "$CHECKER" "$T/out")
case $r in ok*) ;; *) bad "7x7 white e5: independent replay: $r" ;; esac

exit $fail
