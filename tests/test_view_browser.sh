#!/bin/bash
# tests/test_view_browser.sh -- the pictures in a real browser: headless Chromium loads the game
# pages (gounki replay --html of a Gounki and a Gobs record, gounki log export --html of a
# self-play game, self-play log pages with search
# statistics, the training page and a sample game linked from it, also from a real `gounki train`
# run); the DOM after the scripts ran
# must show the number of turns, the move list, the position after the turn asked for in the address,
# its pieces, and no script error; a broken page must report its error in the DOM; screenshots
# of a board, a game page and the training page must come out.  Skipped (exit 77) without
# chromium, which scripts/deps.sh installs.
set -u
. "$(dirname "$0")/lib.sh"
BUILD=${BUILD:?}
SRC=${SRC:?}
CH=$(command -v chromium || command -v chromium-browser) || {
    echo "SKIPPED: chromium is not installed (scripts/deps.sh installs the Debian package)"
    exit 77
}

chrome() { # chromium as root on a machine without a display or a network
    timeout 300 "$CH" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --disable-dev-shm-usage --hide-scrollbars --user-data-dir="$T/profile" "$@" \
        2>>"$T/chromium.log"
}
dom() { chrome --dump-dom "file://$1" >"$2" || bad "chromium could not load $1"; }

# attr FILE NAME: the value of attribute NAME of <body> in a dumped DOM
attr() { grep -o "<body[^>]*>" "$1" | head -1 | grep -o " $2=\"[^\"]*\"" | sed 's/.*="\(.*\)"/\1/'; }

# check_page DOM TURNS TURN: the script ran to its end and shows turn TURN of TURNS
check_page() {
    local d=$1 turns=$2 turn=$3
    [ "$(attr "$d" data-ok)" = 1 ] || bad "$d: the script did not finish (no data-ok)"
    [ -z "$(attr "$d" data-error)" ] || bad "$d: script error: $(attr "$d" data-error)"
    [ "$(attr "$d" data-turns)" = "$turns" ] || bad "$d: data-turns '$(attr "$d" data-turns)', expected $turns"
    [ "$(attr "$d" data-turn)" = "$turn" ] || bad "$d: data-turn '$(attr "$d" data-turn)', expected $turn"
    local moves
    moves=$(grep -o 'class="mv[" ]' "$d" | wc -l)
    [ "$moves" = "$turns" ] || bad "$d: $moves moves in the move list, expected $turns"
    [ "$(grep -o 'class="mv cur"' "$d" | wc -l)" = $((turn > 0 ? 1 : 0)) ] ||
        bad "$d: the current move is not highlighted once"
    grep -q 'id="gv-error" hidden' "$d" || bad "$d: the error line is showing"
}

# pieces POS-STRING GAME: stacks (Gounki) or discs (Gobs) of a position string's board
pieces() {
    if [ "$2" = gobs ]; then
        echo "$1" | awk '{print $2}' | tr -cd 'wb' | wc -c
    else
        echo "$1" | awk '{print $1}' | sed 's/([^)]*)/X/g' | tr -cd 'RSrsX' | wc -c
    fi
}

# 1. The Wikipedia game through gounki replay --html, opened after turn 9.
WIKI=$SRC/tests/fixtures/gounki/wikipedia.txt
"$G" replay "$WIKI" --quiet --html "$T/wiki.html" >/dev/null || bad "replay --html failed"
dom "$T/wiki.html#turn=9" "$T/wiki.dom"
check_page "$T/wiki.dom" 24 9
for m in "a1-a2+" "c5*d5,e5,f6" "b4*a3,b2,a2" "a1-Out"; do
    grep -qF ">$m</span>" "$T/wiki.dom" || bad "wiki: move $m not in the move list"
done
grep -q 'class="mv cur"[^>]*>c5\*d5,e5,f6<' "$T/wiki.dom" || bad "wiki: turn 9 is not the one highlighted"
want=$("$G" show --moves "a1-a2+ a8-b7+ a2-b2+ a7-b7+ b2-b4 e7-d7+ b4-c5 c7-c6 c5*d5,e5,f6" |
    sed -n 's/^position: *//p')
got=$(grep -o '<code id="gv-pos">[^<]*' "$T/wiki.dom" | sed 's/.*>//')
[ "$got" = "$want" ] || bad "wiki turn 9: position '$got', expected '$want'"
n=$(grep -o '<use href="#gk-' "$T/wiki.dom" | wc -l)
[ "$n" = "$(pieces "$want" gounki)" ] || bad "wiki turn 9: $n stacks drawn, expected $(pieces "$want" gounki)"
[ "$(grep -o '<use href="#gv-d[rs]"' "$T/wiki.dom" | wc -l)" = 3 ] || bad "wiki turn 9: not 3 drop badges"
grep -q 'class="arrow"' "$T/wiki.dom" || bad "wiki turn 9: no arrow"
dom "$T/wiki.html" "$T/wiki0.dom" # no address: the start
check_page "$T/wiki0.dom" 24 0

# 2. A Gobs game: self-play -> log cat -> a record -> replay --html, opened at its end.
"$G" selfplay --game gobs --variant short --games 1 --playouts 8 --out "$T/gobs" >"$T/sp.out" 2>&1 ||
    bad "gobs self-play failed: $(tail -3 "$T/sp.out")"
"$G" log cat "$T/gobs" --game 0 >"$T/gobs.txt" || bad "log cat failed"
"$G" replay "$T/gobs.txt" --html "$T/gobs.html" >"$T/gobs.out" || bad "replay --html (gobs) failed"
turns=$(grep -c '^turn ' "$T/gobs.out")
final=$(sed -n 's/^position: //p' "$T/gobs.out")
dom "$T/gobs.html#ply=99999" "$T/gobs.dom" # #ply=N: the old form of #turn=N still opens
check_page "$T/gobs.dom" "$turns" "$turns"
got=$(grep -o '<code id="gv-pos">[^<]*' "$T/gobs.dom" | sed 's/.*>//')
[ "$got" = "$final" ] || bad "gobs: final position '$got', expected '$final'"
n=$(grep -o '<use href="#gb-' "$T/gobs.dom" | wc -l)
[ "$n" = "$(pieces "$final" gobs)" ] || bad "gobs: $n discs drawn, expected $(pieces "$final" gobs)"
grep -q "Gobs (short rules)" "$T/gobs.dom" || bad "gobs: the variant is not named"

# 2b. A self-play game through gounki log export --html: the search panel after turn 4.
"$G" selfplay --games 1 --playouts 16 --seed 3 --quiet --out "$T/sp" >"$T/sp2.out" 2>&1 ||
    bad "self-play failed: $(tail -3 "$T/sp2.out")"
"$G" log export "$T/sp" --game 0 --html "$T/export.html" 2>/dev/null || bad "log export --html failed"
turns=$("$G" log cat "$T/sp" --game 0 | "$G" replay - | grep -c '^turn ')
dom "$T/export.html#turn=4" "$T/export.dom"
check_page "$T/export.dom" "$turns" 4
grep -q '<table class="top">' "$T/export.dom" || bad "log export --html: no top moves after turn 4"
grep -q 'Self-play game 0' "$T/export.dom" || bad "log export --html: no title"

# 3. Self-play log pages with statistics: the search panel and the value graph.
"$BUILD/tests/test_view" --write "$T" >"$T/write.out" || bad "test_view --write failed"
for f in log-gounki log-gobs; do
    turns=$(sed -n "s|^$T/$f.html: [a-z]*, \([0-9]*\) turns.*|\1|p" "$T/write.out")
    dom "$T/$f.html#turn=4" "$T/$f.dom"
    check_page "$T/$f.dom" "$turns" 4
    grep -q '<table class="top">' "$T/$f.dom" || bad "$f: no top moves after turn 4"
    grep -q 'visits' "$T/$f.dom" || bad "$f: no visit counts"
    grep -q 'id="gv-cur" x1="[0-9.]*" x2="[0-9.]*"' "$T/$f.dom" || bad "$f: no cursor in the value graph"
done

# 4. The training page and a sample game it links to.
dom "$T/train/report.html" "$T/train.dom"
[ "$(grep -o '<svg' "$T/train.dom" | wc -l)" = 3 ] || bad "training page: not 3 plots"
link=$(grep -o 'href="games/[^"]*"' "$T/train.dom" | head -1 | sed 's/href="\(.*\)"/\1/')
[ -n "$link" ] && [ -f "$T/train/$link" ] || bad "training page: sample link '$link' missing"
if [ -n "$link" ]; then
    dom "$T/train/$link" "$T/sample.dom"
    [ "$(attr "$T/sample.dom" data-ok)" = 1 ] || bad "sample game page: the script did not finish"
fi

# 4b. The page of a real `gounki train` run (report.html) and a sample game it links to.
"$G" train --run "$T/tr" --generations 2 --games 8 --playouts 16 --match-games 4 --ladder-games 4 \
    --window 1 --threads 1 --min-positions 50 --from "$SRC/tests/fixtures/tune/gounki-material.txt" \
    --quiet >"$T/tr.out" 2>&1 || bad "train failed: $(tail -3 "$T/tr.out")"
dom "$T/tr/report.html" "$T/tr.dom"
[ "$(grep -o '<svg' "$T/tr.dom" | wc -l)" = 3 ] || bad "train report.html: not 3 plots"
[ "$(grep -o 'href="games/gen-00[12]-game-[0-9]*.html"' "$T/tr.dom" | sort -u | wc -l)" = 4 ] ||
    bad "train report.html: not 2 sample games for each of 2 generations"
link=$(grep -o 'href="games/gen-002-[^"]*"' "$T/tr.dom" | head -1 | sed 's/href="\(.*\)"/\1/')
if [ -n "$link" ] && [ -f "$T/tr/$link" ]; then
    dom "$T/tr/$link" "$T/trs.dom"
    [ "$(attr "$T/trs.dom" data-ok)" = 1 ] || bad "train sample page: the script did not finish"
    [ -z "$(attr "$T/trs.dom" data-error)" ] || bad "train sample page: $(attr "$T/trs.dom" data-error)"
else
    bad "train report.html: sample link '$link' missing"
fi

# 5. A script error is caught and shown in the page.
sed 's/"turns":\[/"turns":[oops/' "$T/wiki.html" >"$T/broken.html"
dom "$T/broken.html" "$T/broken.dom"
[ -n "$(attr "$T/broken.dom" data-error)" ] || bad "broken page: no data-error"
[ -z "$(attr "$T/broken.dom" data-ok)" ] || bad "broken page: data-ok set anyway"
grep -q 'id="gv-error">Script error' "$T/broken.dom" || bad "broken page: the error is not shown"

# 6. Screenshots: a board (show --svg), a game page and the training page.
"$G" show --moves "a1-a2+ a8-b7+" --svg "$T/board.svg" >/dev/null || bad "show --svg failed"
chrome --screenshot="$T/board.png" --window-size=520,640 "file://$T/board.svg"
chrome --screenshot="$T/page.png" --window-size=1000,1000 "file://$T/log-gounki.html#turn=6"
chrome --screenshot="$T/train.png" --window-size=1320,900 "file://$T/train/report.html"
for f in board page train; do
    sz=$(stat -c %s "$T/$f.png" 2>/dev/null || echo 0)
    [ "$(head -c 4 "$T/$f.png" 2>/dev/null | tail -c 3)" = PNG ] && [ "$sz" -gt 5000 ] ||
        bad "screenshot $f.png missing or empty ($sz bytes)"
done

if ((fail)); then
    echo "--- chromium's messages (tail):" >&2
    tail -5 "$T/chromium.log" >&2
    exit 1
fi
echo "browser checks passed (chromium $("$CH" --version 2>/dev/null | awk '{print $2}'))"
