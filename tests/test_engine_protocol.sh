#!/usr/bin/env bash
# tests/test_engine_protocol.sh -- replays the example session of docs/PROTOCOL.md against `gounki engine`, then the error cases.
set -u
. "$(dirname "$0")/lib.sh"
tmp=$T
trap 'rm -rf "$T"; [ -n "${PID:-}" ] && kill "$PID" 2>/dev/null' EXIT

start() {
    coproc ENG { "$GOUNKI" engine "$@" 2>"$tmp/stderr"; }
    PID=$ENG_PID # bash unsets ENG_PID once the engine has exited
    IN=${ENG[1]}
    OUT=${ENG[0]}
}
send() { printf '%s\n' "$1" >&"$IN"; }
getline() {
    IFS= read -r -t 60 -u "$OUT" line || fail "no reply (waiting for: $1)"
}
# Whether engine line $1 matches expected line $2 (a trailing "..." matches any rest).
matches() {
    case $2 in
    *...) [[ $1 == "${2%...}"* ]] ;;
    *) [ "$1" = "$2" ] ;;
    esac
}

# ---- the example session, as the document shows it ----
awk '/^## Example session/{f=1} f&&/^```/{n++; next} f&&n==1' "$SRC/docs/PROTOCOL.md" >"$tmp/session"
[ "$(grep -c '^> ' "$tmp/session")" -ge 10 ] || fail "no example session in docs/PROTOCOL.md"
start
mapfile -t L <"$tmp/session"
i=0
while [ $i -lt ${#L[@]} ]; do
    l=${L[$i]}
    i=$((i + 1))
    case $l in
    '> '*) send "${l#> }" ;;
    '< ...')
        # Any lines up to the one that matches the next expected line.
        next=${L[$i]#< }
        while getline "$next"; do matches "$line" "$next" && break; done
        i=$((i + 1))
        ;;
    '< '*)
        getline "${l#< }"
        matches "$line" "${l#< }" || fail "expected '${l#< }', got '$line'"
        ;;
    *) fail "line of the session neither '> ' nor '< ': $l" ;;
    esac
done
wait "$PID"
rc=$?
[ $rc -eq 0 ] || fail "the engine exited with $rc after quit"
PID=

# ---- error cases: every one answers one error line and the engine goes on ----
run() { printf '%b' "$1" | "$GOUNKI" engine 2>"$tmp/err"; }
out=$(run 'go\nposition startpos moves a1-a8\nposition bogus\nsetoption name nosuch value 1\nsetoption name playouts value -3\ngame gounki\ngo playouts 0\ngo btime 10\ngame chess\ngame gobs long\nnewgame seed x\nxyzzy\nisready\n')
[ "$(grep -c '^error ' <<<"$out")" -eq 11 ] || fail "expected 11 errors, got: $out"
grep -q "^error go: no position" <<<"$out" || fail "go before position: $out"
grep -q "^error position: move 1 'a1-a8'" <<<"$out" || fail "bad move: $out"
grep -q "^error xyzzy: unknown command" <<<"$out" || fail "bad command: $out"
grep -q "^error go: wtime is needed: white is to move" <<<"$out" || fail "clock of the mover: $out"
[ "$(tail -1 <<<"$out")" = readyok ] || fail "the engine did not go on: $out"

# A control character or NUL byte refuses the line; an overlong line too.
out=$(printf 'isready\001\nis\000ready\nisready\n' | "$GOUNKI" engine)
[ "$(grep -c '^error -: control character' <<<"$out")" -eq 2 ] || fail "control characters: $out"
out=$( (head -c 70000 /dev/zero | tr '\0' a; printf '\nisready\n') | "$GOUNKI" engine)
[ "$out" = "$(printf 'error -: line longer than 65536 bytes\nreadyok')" ] || fail "long line: $out"

# The previous position stays after a refused one; stop without a search says nothing.
out=$(run 'game gounki\nposition startpos moves c2-d3\nposition startpos moves c2-d3 zz\nstop\nshow\n')
grep -q "^info position .* tomove black" <<<"$out" || fail "refused position changed the state: $out"
[ "$(grep -c '^error' <<<"$out")" -eq 1 ] || fail "stop without a search: $out"

# EOF during a search: an infinite one stops at once, one with a budget finishes; both
# write their bestmove and the engine exits 0.
t0=$(date +%s)
out=$(run 'game gounki\ngo infinite\n')
rc=$?
[ $rc -eq 0 ] || fail "EOF during a search: exit $rc"
[[ $(tail -1 <<<"$out") == "bestmove "?* ]] || fail "no bestmove after EOF: $out"
[ $(($(date +%s) - t0)) -lt 20 ] || fail "EOF did not stop the infinite search"
# The turn limit option, and its old name max_plies.
a=$(run 'game gounki\nsetoption name turn_limit value 1\nposition startpos moves a1-a2+\nshow\n')
b=$(run 'game gounki\nsetoption name max_plies value 1\nposition startpos moves a1-a2+\nshow\n')
[ "$a" = "$b" ] || fail "setoption max_plies is not turn_limit"
grep -q "reason turn-limit" <<<"$a" || fail "turn_limit 1: no draw by the turn limit: $(tail -1 <<<"$a")"
run 'gep\n' | grep -q "^option name turn_limit type spin default 500 " || fail "gep: no turn_limit option"
out=$(run 'game gounki\nsetoption name early_stop value off\ngo playouts 3000\n')
grep -q "^info playouts 3000 " <<<"$out" || fail "EOF cut a search with a budget short: $out"
# setoption clock_moves is kept by a go with a clock: 2 s / 5 is 0.39 s (0.07 s at 25).
out=$(run 'game gounki\nsetoption name early_stop value off\nsetoption name clock_moves value 5\ngo wtime 2000 btime 2000\n')
ms=$(grep "^info playouts" <<<"$out" | tail -1 | sed -n 's/.* time \([0-9]*\) .*/\1/p')
[ -n "$ms" ] && [ "$ms" -ge 380 ] || fail "go wtime 2000 with clock_moves 5 searched ${ms:-?} ms, not 390: $out"

# quit during a search; go while searching is refused; stop gives the bestmove.
start
send "game gounki"
send "go infinite"
send "go playouts 10"
getline "error go"
[ "$line" = "error go: a search is running (send 'stop' first)" ] || fail "go while searching: $line"
send "isready"
getline readyok
[ "$line" = readyok ] || fail "isready during a search: $line"
send "stop"
last=
while getline bestmove; do
    case $line in bestmove*) break ;; esac
    last=$line
done
[[ $last == "info playouts "* ]] || fail "no info line before bestmove: $last"
mv=${line#bestmove }
send "position startpos moves $mv"
send "show"
while getline "info position"; do case $line in "info position"*) break ;; esac; done
[[ $line == *"tomove black"* ]] || fail "bestmove '$mv' is not playable: $line"
send "go infinite"
send "quit"
wait "$PID"
rc=$?
[ $rc -eq 0 ] || fail "quit during a search: exit $rc"
PID=

# A Gobs weight file starts the session in Gobs; a game it does not fit is refused.
out=$(printf 'show\ngame gounki\nsetoption name weights value\ngame gounki\nshow\n' |
    "$GOUNKI" engine --weights "$SRC/weights/gobs-default.txt")
grep -q "^info position standard " <<<"$out" || fail "Gobs weights: $out"
grep -q "^error game: weights: .*not 'gounki'.*(set the option weights first)" <<<"$out" || fail "Gobs weights, game gounki: $out"
[ "$(grep -c '^error' <<<"$out")" -eq 1 ] || fail "Gobs weights: $out"
grep -q "^info position rsrsrsrs" <<<"$out" || fail "Gobs weights, then none: $out"

# nodes alone decides (no default playout budget behind it).
out=$(run 'game gounki\ngo nodes 200000\n')
n=$(sed -n 's/^info playouts \([0-9]*\) .*/\1/p' <<<"$out" | tail -1)
[ "${n:-0}" -gt 1000 ] || fail "go nodes stopped at $n playouts: $out"

# A game over: bestmove none.  Gobs: the answer is a whole turn, playable as one move.
out=$(run 'game gounki\nposition startpos moves b2-b3 a7-a6 b3-c3 a6-b6 c3-b3 b6-a6 b3-c3 a6-b6 c3-b3 b6-a6\ngo playouts 10\n')
[ "$(tail -1 <<<"$out")" = "bestmove none" ] || fail "game over: $out"
grep -q "^info string game over: 1/2-1/2 (repetition)" <<<"$out" || fail "game over: $out"
pos='standard 6bbb/8b/9/9/2b6/9/2b6/2w6/ww1www3 w 4 - *'
out=$(run "game gobs\nposition text $pos\ngo playouts 200\n")
mv=$(sed -n 's/^bestmove //p' <<<"$out")
[ -n "$mv" ] || fail "Gobs: no bestmove: $out"
"$GOUNKI" moves --game gobs --position "$pos" --moves "$mv" >/dev/null 2>&1 || fail "Gobs: bestmove '$mv' is not a complete move"
echo "ok"
