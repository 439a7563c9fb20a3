#!/usr/bin/env bash
# gounki replay: the Wikipedia game (the seed text 002) as a table, the same game in the
# gounki.org / boardspace styles, the record writer read back, and bad records, each
# rejected with one line naming the line, turn, move text and reason, exit 1.
set -u
. "$(dirname "$0")/lib.sh"
FIX=$SRC/tests/fixtures/gounki

check() { # name, condition already evaluated as $?
    if [ "$2" -ne 0 ]; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi
}
expect_rc() { # name, want, command...
    local name=$1 want=$2
    shift 2
    "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ $rc -ne "$want" ]; then
        echo "FAIL: $name: exit $rc, want $want"; cat "$T/out" "$T/err" | tail -5; fail=1; return 1
    fi
    echo "ok: $name"
}
has() { # name, file, fixed string
    if grep -qF -- "$3" "$2"; then echo "ok: $1"; else echo "FAIL: $1: '$3' not in:"; tail -3 "$2"; fail=1; fi
}

# The Wikipedia game: every move legal, Black wins by exit on turn 24.
expect_rc "wikipedia replays" 0 "$GOUNKI" replay "$FIX/wikipedia.txt"
has "wikipedia: 24 turns" "$T/out" "turn  24  Black  a1-Out"
has "wikipedia: the rebound deployment" "$T/out" "turn  18  Black  b4*a3,b2,a2"
has "wikipedia: Black wins by exit" "$T/out" "result: 0-1 (Black wins by exit) after 24 moves"
cp "$T/out" "$T/wiki.out"
[ "$(grep -c '^turn ' "$T/out")" -eq 24 ]; check "wikipedia: exactly 24 turn lines" $?

# The same game in the gounki.org style gives the same turns and result.
expect_rc "gounki.org style replays" 0 "$GOUNKI" replay "$FIX/gounkiorg.txt"
diff <(grep -v '^game' "$T/wiki.out") <(grep -v '^game' "$T/out") >/dev/null; check "both styles give the same game" $?

# Standard input, --quiet.
expect_rc "stdin" 0 "$GOUNKI" replay --quiet - <"$FIX/wikipedia.txt"
[ "$(wc -l <"$T/out")" -eq 2 ]; check "--quiet prints position and result only" $?

# The writer: --record output reads back to the same game.
expect_rc "--record" 0 "$GOUNKI" replay --record "$FIX/wikipedia.txt"
cp "$T/out" "$T/rec.txt"
has "--record: numbered moves" "$T/rec.txt" "12. e2-b5 a1-Out 0-1"
has "--record: tags kept" "$T/rec.txt" '[White "MGounki"]'
expect_rc "--record output replays" 0 "$GOUNKI" replay "$T/rec.txt"
diff <(grep -v '^game' "$T/wiki.out") <(grep -v '^game' "$T/out") >/dev/null; check "record round trip gives the same game" $?

# A match file: several records, each starting with its tags.
cat "$FIX/wikipedia.txt" "$FIX/gounkiorg.txt" "$T/rec.txt" >"$T/match.txt"
expect_rc "three records in one file" 0 "$GOUNKI" replay "$T/match.txt"
[ "$(grep -c '^result: 0-1 (Black wins by exit) after 24 moves' "$T/out")" -eq 3 ]; check "three games replayed" $?
sed 's/^11\.\tb1xa1/11.\tb1xa2/' "$FIX/wikipedia.txt" >"$T/bad2.txt"
cat "$FIX/gounkiorg.txt" "$T/bad2.txt" >"$T/match2.txt"
expect_rc "match file with a bad second game" 1 "$GOUNKI" replay "$T/match2.txt"
has "bad second game: line number in the file" "$T/err" "line 37, turn 21 (White): 'b1xa2'"
[ "$(grep -c '^result:' "$T/out")" -eq 1 ]; check "bad second game: the first game printed" $?

# Bad records: one line, with the turn, the text and the reason; exit 1.
bad() { # name, expected substring, record text
    printf '%b' "$3" >"$T/bad.txt"
    if expect_rc "$1" 1 "$GOUNKI" replay "$T/bad.txt"; then
        has "$1: message" "$T/err" "$2"
        [ "$(wc -l <"$T/err")" -eq 1 ]; check "$1: one line" $?
    fi
}
bad "illegal move" "line 2, turn 3 (White): 'a2-a4': not a legal move" '1. a1-a2+ a8-b7+\n2. a2-a4 a7-b7+\n'
bad "move of the wrong side" "turn 2 (Black): 'b2-b3': b2 holds a White piece but Black is to move" '1. a1-a2+ b2-b3\n'
bad "false capture mark" "'a1xa2': 'x' but a2 holds no enemy piece" 'a1xa2\n'
bad "move after the end" "turn 25: 'b5-b6': the game is already over (0-1 exit)" "$(cat "$FIX/wikipedia.txt" | sed 's/^12\.\te2-b5\ta1-Out$/12.\te2-b5\ta1-Out\n13.\tb5-b6/')\n"
bad "wrong move number" "move number 3, but the next move (turn 3, White) is number 2" '1. a1-a2+ a8-b7+ 3. a2-b2+\n'
bad "unclosed comment" "line 1: comment '{' is never closed" '1. a1-a2+ { no end\n'
bad "garbage" "line 1, turn 1 (White): 'hello world': expected an origin square" 'hello world\n'
bad "bad tag" "tag Game: unknown game 'chess'" '[Game "chess"]\n1. a1-a2+\n'
bad "bad position tag" "tag Position:" '[Position "8/8 w 0"]\n'
bad "text after the result" "after the result token" '1. a1-a2+ 1-0 a8-b7+\n'
bad "result token contradicts" "the result token says 1-0 but the game ended 0-1" "$(sed 's/^\[Result.*//; $ s/$/\\t1-0/' "$FIX/wikipedia.txt")\n"
bad "Result tag contradicts" "the Result tag says 1/2-1/2" "$(sed 's/0-1/1\/2-1\/2/' "$FIX/wikipedia.txt")\n"
bad "Termination tag contradicts" "the Termination tag says capture-all but the game ended by exit" "[Termination \"capture-all\"]\n$(cat "$FIX/wikipedia.txt")\n"
bad "NUL byte" "NUL byte" '1. a1-a2+\0\n'

# Result spellings of other programs (gounki.org writes "0 - 1"): compared by meaning, kept as written.
sed 's/^\[Result "0-1"\]/[Result "0 - 1"]/; s/^0-1$/0 - 1/' "$FIX/gounkiorg.txt" >"$T/spaced.txt"
expect_rc "spaced Result tag and token" 0 "$GOUNKI" replay "$T/spaced.txt"
has "spaced result: the game's result" "$T/out" "result: 0-1 (Black wins by exit) after 24 moves"
expect_rc "spaced result: --record" 0 "$GOUNKI" replay --record "$T/spaced.txt"
has "spaced result: tag kept as written" "$T/out" '[Result "0 - 1"]'
has "spaced result: token kept as written" "$T/out" "12. e2-b5 a1-Out 0 - 1"
cp "$T/out" "$T/spaced_rec.txt"
expect_rc "spaced result: written record replays" 0 "$GOUNKI" replay "$T/spaced_rec.txt"
printf '[Result "\xc2\xbd-\xc2\xbd"]\n1. a1-a2+ a8-b7+ 1/2 - 1/2\n' >"$T/half.txt"
expect_rc "½-½ tag and '1/2 - 1/2' token" 0 "$GOUNKI" replay "$T/half.txt"
has "½-½: a draw" "$T/out" "result: 1/2-1/2 (draw off the board"
bad "spaced tag contradicts" 'the Result tag says 1 - 0 but the game ended 0-1' "$(sed 's/^\[Result "0-1"\]/[Result "1 - 0"]/' "$FIX/gounkiorg.txt")\n"
bad "Result tag that is no result" "the Result tag says 'White': not a result" '[Result "White"]\n1. a1-a2+\n'

# A record that stops early with a result is a game ended off the board: one result line.
printf '1. a1-a2+ a8-b7+ 1-0\n' >"$T/short.txt"
expect_rc "unfinished game with a result token" 0 "$GOUNKI" replay "$T/short.txt"
has "unfinished game: a result off the board" "$T/out" "result: 1-0 (White wins off the board: resignation, agreement or time) after 2 moves"
# A resigned game as `gounki play` saves it: the result and the reason, no note, exit 0.
printf '[Result "0-1"]\n[Termination "resign"]\n\n1. a1-a2+ a8-b7+ 0-1\n' >"$T/resigned.txt"
expect_rc "resigned game" 0 "$GOUNKI" replay "$T/resigned.txt"
has "resigned game: result" "$T/out" "result: 0-1 (Black wins by resign) after 2 moves"
! grep -q 'note:\|not over' "$T/out"; check "resigned game: no note" $?
printf '[Result "1/2-1/2"]\n[Termination "agreement"]\n\n1. a1-a2+ a8-b7+ 1/2-1/2\n' >"$T/agreed.txt"
expect_rc "agreed draw" 0 "$GOUNKI" replay "$T/agreed.txt"
has "agreed draw: result" "$T/out" "result: 1/2-1/2 (draw by agreement) after 2 moves"
printf '[Result "1-0"]\n[Termination "time forfeit"]\n\n1. a1-a2+ a8-b7+\n' >"$T/time.txt"
expect_rc "loss on time (tag only)" 0 "$GOUNKI" replay "$T/time.txt"
has "loss on time: result" "$T/out" "result: 1-0 (White wins by time forfeit) after 2 moves"
bad "token and tag disagree" "the result token says 1-0 but the Result tag says 0-1" '[Result "0-1"]\n1. a1-a2+ a8-b7+ 1-0\n'
bad "rules ending not reached" "the Termination tag says exit but the rules have not ended the game after turn 2" '[Termination "exit"]\n1. a1-a2+ a8-b7+ 1-0\n'
bad "resigned into a draw" "the Termination tag says resign but the result is a draw" '[Termination "resign"]\n1. a1-a2+ a8-b7+ 1/2-1/2\n'

# Turn limits the repetition history holds (0..4095), the range in the error.
expect_rc "--turn-limit 4095" 0 "$GOUNKI" replay --quiet --turn-limit 4095 "$T/short.txt"
expect_rc "--turn-limit 65535 refused" 2 "$GOUNKI" replay --turn-limit 65535 "$T/short.txt"
has "--turn-limit range" "$T/err" "out of range [0, 4095]"
bad "TurnLimit tag beyond the history" "tag TurnLimit: '5000' is not a number 0..4095" '[TurnLimit "5000"]\n1. a1-a2+\n'
bad "MaxPlies tag beyond the history" "tag MaxPlies: '5000' is not a number 0..4095" '[MaxPlies "5000"]\n1. a1-a2+\n'

# The turn limit's tag and reason, and their old names MaxPlies and ply-limit, which
# older records hold: both read to the same game; the writer writes the new names.
printf '[TurnLimit "2"]\n[Termination "turn-limit"]\n\n1. a1-a2+ a8-b7+ 1/2-1/2\n' >"$T/limit.txt"
printf '[MaxPlies "2"]\n[Termination "ply-limit"]\n\n1. a1-a2+ a8-b7+ 1/2-1/2\n' >"$T/limit-old.txt"
expect_rc "TurnLimit and turn-limit" 0 "$GOUNKI" replay "$T/limit.txt"
has "TurnLimit: a draw at the limit" "$T/out" "1/2-1/2 turn-limit"
cp "$T/out" "$T/limit.out"
expect_rc "MaxPlies and ply-limit (old names)" 0 "$GOUNKI" replay "$T/limit-old.txt"
cmp -s "$T/out" "$T/limit.out"; check "the old names give the same replay" $?
printf '1. a1-a2+ a8-b7+ 2. a2-b3+\n' >"$T/three.txt"
expect_rc "--turn-limit 2" 1 "$GOUNKI" replay --turn-limit 2 "$T/three.txt"
has "--turn-limit 2: the third move is after the end" "$T/err" "turn 3: 'a2-b3+': the game is already over (1/2-1/2 turn-limit)"
cp "$T/err" "$T/tl.out"
expect_rc "--max-plies 2 (old name)" 1 "$GOUNKI" replay --max-plies 2 "$T/three.txt"
cmp -s "$T/err" "$T/tl.out"; check "--max-plies is --turn-limit" $?
expect_rc "--record of an old record" 0 "$GOUNKI" replay --record "$T/limit-old.txt"
has "--record writes TurnLimit" "$T/out" '[TurnLimit "2"]'
! grep -q MaxPlies "$T/out"; check "--record writes no MaxPlies" $?

# Usage errors.
expect_rc "no file" 2 "$GOUNKI" replay
expect_rc "missing file" 1 "$GOUNKI" replay "$T/nope.txt"
expect_rc "--position refused" 2 "$GOUNKI" replay --position x "$FIX/wikipedia.txt"
expect_rc "--help" 0 "$GOUNKI" replay --help

exit $fail
