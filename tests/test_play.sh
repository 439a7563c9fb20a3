#!/bin/bash
# tests/test_play.sh -- `gounki play` driven by here-documents: moves, illegal input,
# undo, save/replay, resign, end of input, engine against engine, a Gobs jump chain.
set -u
. "$(dirname "$0")/lib.sh"

# 1. A person as White against a depth-1 alpha-beta.
"$GOUNKI" play --human white --engine ab:depth=1,eval=classic > "$T/p1.out" 2>&1 <<IN
help
a2-a9
hello world
b2-b3
undo
c2-d3
save $T/game.txt
resign
undo
save
d2-d3
IN
rc=$?
[ $rc = 0 ] || bad "play exited $rc at end of input"
has "$T/p1.out" "illegal move 'a2-a9'" "illegal move not explained"
has "$T/p1.out" "illegal move 'hello world'" "garbage not explained"
has "$T/p1.out" "White plays b2-b3" "human move not played"
has "$T/p1.out" "Black plays .*win [0-9.]*%, [0-9.]* s" "engine answer without win probability and time"
has "$T/p1.out" "took back to turn 1" "undo did not go back"
has "$T/p1.out" "White plays c2-d3" "move after undo not played"
has "$T/p1.out" "saved to" "save failed"
has "$T/p1.out" "game over: 0-1 (resign)" "resign not reported"
has "$T/p1.out" "save needs a file name" "save without a file not explained"
has "$T/p1.out" "White plays d2-d3" "undo of a resignation did not reopen the game"
has "$T/p1.out" "end of input" "end of input not handled"
[ "$(grep -c 'White plays' "$T/p1.out")" = 3 ] || bad "expected 3 human moves"
# The saved record holds White's c2-d3 and Black's answer, and replays.
[ -s "$T/game.txt" ] || bad "no record saved"
has "$T/game.txt" '^1\. c2-d3 ' "record lacks the moves"
if "$GOUNKI" replay --help > /dev/null 2>&1; then
    "$GOUNKI" replay "$T/game.txt" > "$T/replay.out" 2>&1 || bad "saved game does not replay: $(tail -1 "$T/replay.out")"
fi

# 2. A person as Black: the engine opens.
printf 'quit\n' | "$GOUNKI" play --human black --engine random --seed 3 --quiet-board > "$T/p2.out" 2>&1
[ $? = 0 ] || bad "quit did not exit 0"
head -3 "$T/p2.out" | grep -q '^White plays' || bad "engine did not open as White"
has "$T/p2.out" "bye$" "quit not acknowledged"

# 3. Engine against engine to the end.
"$GOUNKI" play --human none --engine ab:depth=2,eval=classic --engine2 random --seed 2 \
    < /dev/null > "$T/p3.out" 2>&1 || bad "engine vs engine failed"
has "$T/p3.out" "^game over: 1-0" "depth 2 did not beat random as White"
# The same engine on both sides also plays through.
"$GOUNKI" play --human none --engine greedy --quiet-board < /dev/null > "$T/p3b.out" 2>&1 ||
    bad "engine vs itself failed"
has "$T/p3b.out" "^game over" "engine vs itself did not finish"

# 4. Gobs: a person's jump chain of four legs is one move (two people at the board).
P="standard bbbbbbbbb/9/9/3b5/1b7/2b1b1w2/9/9/wwwwwwwww w 0 - *"
"$GOUNKI" play --game gobs --position "$P" --human both --quiet-board > "$T/p4.out" 2>&1 <<IN
g4:d4:b4:b6:z9
g4:d4:b4:b6:f6
board
IN
has "$T/p4.out" "illegal move 'g4:d4:b4:b6:z9'" "bad chain not refused"
has "$T/p4.out" "White plays g4:d4:b4:b6:f6" "chain not played as one move"
has "$T/p4.out" "white 14, black 9" "the four jumped pieces were not flipped"

# 5. Bad options: exit 2, one line.
"$GOUNKI" play --human purple < /dev/null > /dev/null 2> "$T/e1"
[ $? = 2 ] && [ "$(wc -l < "$T/e1")" = 1 ] || bad "--human purple: $(cat "$T/e1")"
"$GOUNKI" play --engine ab:depth=-3 < /dev/null > /dev/null 2> "$T/e2"
[ $? = 2 ] && grep -q depth "$T/e2" || bad "--engine ab:depth=-3: $(cat "$T/e2")"
"$GOUNKI" play --help | grep -q 'usage: gounki play' || bad "--help"

# 6. The prompt (issue 10): commands in any case, hint, load FILE, a legend under the board.
"$GOUNKI" play --engine ab:depth=1,eval=classic > "$T/p6.out" 2>&1 <<IN
HELP
Hint
b2-b3
SAVE $T/g6.txt
QUIT
IN
has "$T/p6.out" "load FILE" "help does not list load"
has "$T/p6.out" "^white> hint: [a-h][1-8]" "hint gave no move"
has "$T/p6.out" "^legend: " "no legend under the board"
has "$T/p6.out" "saved to $T/g6.txt" "SAVE (upper case) not read"
has "$T/p6.out" "bye$" "QUIT (upper case) not read"
printf 'load %s\nload %s/none.txt\nquit\n' "$T/g6.txt" "$T" |
    "$GOUNKI" play --engine ab:depth=1,eval=classic --quiet-board > "$T/p6b.out" 2>&1
has "$T/p6b.out" "loaded $T/g6.txt: 2 moves, turn 3, White to move" "load did not continue the game"
has "$T/p6b.out" "cannot load" "a missing file to load not explained"
printf 'load %s\nquit\n' "$T/g6.txt" | "$GOUNKI" play --game gobs --quiet-board > "$T/p6c.out" 2>&1
has "$T/p6c.out" "cannot load .*gounki" "a record of the other game loaded"

# 7. --human none --save FILE keeps the game; it replays.
"$GOUNKI" play --human none --engine random --turn-limit 6 --save "$T/g7.txt" --quiet-board \
    < /dev/null > "$T/p7.out" 2>&1 || bad "--human none --save failed"
"$GOUNKI" replay "$T/g7.txt" > "$T/p7r.out" 2>&1 || bad "the saved engine game does not replay"
has "$T/p7r.out" "after 6 moves" "the saved engine game is not the whole game"

# 8. While the engine thinks: info lines (standard error; plain here), and Ctrl-C makes it
# play its best move so far, then the prompt asks again.
mkfifo "$T/in8"
GK_PROGRESS_EVERY=0.2 "$GOUNKI" play --human black --engine mcts:time=60 --quiet-board \
    < "$T/in8" > "$T/p8.out" 2>&1 &
ppid=$!
exec 8> "$T/in8" # standard input stays open while the engine thinks
for _ in $(seq 1 300); do # until it shows that it thinks (the handler is in place)
    grep -q '^thinking: ' "$T/p8.out" && break
    sleep 0.1
done
kill -INT "$ppid"
for _ in $(seq 1 100); do
    grep -q '^black> ' "$T/p8.out" && break
    sleep 0.1
done
echo quit >&8
exec 8>&-
wait "$ppid"
has "$T/p8.out" "^thinking: [0-9]* playouts, best " "no thinking lines"
has "$T/p8.out" "stopped by Ctrl-C" "Ctrl-C did not stop the search"
has "$T/p8.out" "^White plays " "no move after Ctrl-C"
has "$T/p8.out" "bye$" "the prompt did not come back after Ctrl-C"

# 9. The board turned for --human black (and --flip): files h..a, rank 1 at the top; the
# squares move with their files (Gobs: c3-c5 shows on the seventh file from the left).
printf 'quit\n' | "$GOUNKI" play --human black --engine random > "$T/p9.out" 2>&1
sed -n 2p "$T/p9.out" | grep -q '^ *h  *g  *f  *e  *d  *c  *b  *a$' || bad "--human black: files not turned: $(sed -n 2p "$T/p9.out")"
sed -n 3p "$T/p9.out" | grep -q '^  1  wR    wS ' || bad "--human black: rank 1 not on top: $(sed -n 3p "$T/p9.out")"
printf 'quit\n' | "$GOUNKI" play --game gobs --flip --moves c3-c5 > "$T/p9b.out" 2>&1
grep -q '^ 5  \. \. \. \. \. \.\*w \. \.  5$' "$T/p9b.out" || bad "--flip: c5 not where it belongs: $(grep '^ 5 ' "$T/p9b.out")"
grep -q '^ 3  w w w w w w\*\. w w  3$' "$T/p9b.out" || bad "the square c3 left is not marked"
# The last move's squares are marked with '*' (Gounki b2-b3: b2 and b3), none at the start.
printf 'quit\n' | "$GOUNKI" play --moves b2-b3 --human both > "$T/p9c.out" 2>&1
grep -q '^  3   \.   \*wS     \. ' "$T/p9c.out" || bad "b3 not marked: $(grep '^  3 ' "$T/p9c.out")"
grep -q '^  2  wR    \*\.    wR ' "$T/p9c.out" || bad "b2 not marked: $(grep '^  2 ' "$T/p9c.out")"
grep -q '\*' "$T/p9.out" && head -12 "$T/p9.out" | grep -q '^ *[1-8] .*\*' && bad "a mark on the start position"

exit $fail
