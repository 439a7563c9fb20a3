# tests/solitaire_check.awk -- replays `gounki solitaire` output with its own move rule
# (not the solver's code): every numbered move legal, the goal reached at the last one,
# and the move count equal to the length the final line states.
# usage: awk -v n=N -v preflip=SQ -v fixed=SQ,SQ -v white=SQ,SQ -f solitaire_check.awk OUT
# prints "ok L" or "bad: why", exits 0 / 1.
function sq(s) { return (index("abcdefghi", substr(s, 1, 1)) - 1) + 9 * (substr(s, 2, 1) - 1) }
function inside(q, f, r) { f = q % 9; r = int(q / 9); return f >= lo && f < lo + n && r >= lo && r < lo + n }
function die(msg) { print "bad: " msg; bad = 1; exit 1 }
BEGIN {
    lo = int((9 - n) / 2)
    for (q = 0; q < 81; q++) cell[q] = inside(q) ? "b" : "."
    k = split(fixed, a, ","); for (i = 1; i <= k; i++) { cell[sq(a[i])] = "F"; isfixed[sq(a[i])] = 1 }
    k = split(white, a, ","); for (i = 1; i <= k; i++) cell[sq(a[i])] = "w"
    first = -1
    if (preflip != "") { first = sq(preflip); cell[first] = "w" }
    moves = 0
}
/^[0-9]+\. [a-i][1-9]x[a-i][1-9]-[a-i][1-9]$/ {
    split($2, m, /[x-]/)
    fr = sq(m[1]); ov = sq(m[2]); to = sq(m[3])
    moves++
    if ($1 != moves ".") die("move numbered " $1 " at " moves)
    df = ov % 9 - fr % 9; dr = int(ov / 9) - int(fr / 9)
    if (df < -1 || df > 1 || dr < -1 || dr > 1 || (df == 0 && dr == 0)) die($2 ": not adjacent")
    tf = ov % 9 + df; tr = int(ov / 9) + dr
    if (tf < 0 || tf > 8 || tr < 0 || tr > 8 || 9 * tr + tf != to) die($2 ": not the square beyond")
    if (cell[fr] != "b" && cell[fr] != "w") die($2 ": no movable piece on " m[1])
    if (cell[ov] != "b" && cell[ov] != "w") die($2 ": nothing jumpable on " m[2])
    if (cell[to] != ".") die($2 ": " m[3] " occupied")
    if (first >= 0 && fr != first) die($2 ": the pre-flipped piece must move first")
    first = -1
    cell[to] = cell[fr]; cell[fr] = "."; cell[ov] = cell[ov] == "b" ? "w" : "b"
}
/^(solved in|best solution found:) [0-9]+ moves/ { claimed = $0; gsub(/[^0-9].*$/, "", claimed); claimed = $0; sub(/^[^0-9]*/, "", claimed); sub(/ .*/, "", claimed) }
END {
    if (bad) exit 1
    if (moves == 0) { print "bad: no moves"; exit 1 }
    for (q = 0; q < 81; q++) if (inside(q) && !isfixed[q] && cell[q] != "w") { print "bad: square " q " not white"; exit 1 }
    if (claimed != moves) { print "bad: " moves " moves, the output says " claimed; exit 1 }
    print "ok " moves
}
