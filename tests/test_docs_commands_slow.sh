#!/bin/bash
# tests/test_docs_commands_slow.sh -- every command line quoted in README.md and docs/*.md runs as
# written against the built program and exits 0, so that the docs cannot drift from it.
#
# A command is a line of a code block (fenced, or indented by four spaces) or an inline code
# span that starts with `gounki `, `build/gounki `, `$ gounki ` or `mpirun ... gounki `; a
# line ending in `\` goes on with the next.  The commands of one file run in order, in one
# scratch folder of its own where `gounki` and `build/gounki` are the program and tests/,
# books/, weights/, scripts/ and docs/ are the source tree's, so that a later command may
# read what an earlier one wrote (a run, a book).  Standard input is empty.
# Not run, and listed as such:
#   - synopses: a line with `[`, `...` or a placeholder word (N, DIR, FILE, SPEC, ...);
#   - an inline span naming a subcommand or a flag, not a whole command (`gounki match`,
#     `gounki match --pgn`);
#   - the commands of SKIP below, each with its reason (cluster-sized runs);
#   - `--png` without rsvg-convert, `mpirun` without Open MPI (said so; not a failure).
# DOCS_TIMEOUT (seconds, default 300) bounds each command; DOCS_ONLY=FILE runs one file.
set -u
fail=0
T=${TMPDIR:-/tmp}/test_docs_commands.$$
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
: "${GOUNKI:?GOUNKI is the program}" "${SRC:?SRC is the source tree}"
limit=${DOCS_TIMEOUT:-300}

# Commands not run, by their exact text (after joining continued lines), with the reason.
declare -A SKIP=(
    ["mpirun -np 4 gounki selfplay --games 10000 --run runs/sp1 --threads 2"]="a cluster-sized run (10,000 games: about 25 CPU-minutes)"
    ["gounki book build --logs runs/sp1 --out gounki.book --max-turns 12 --min-games 3"]="reads the 10,000-game run above"
    ["mpirun -np 4 gounki book expand gounki.book --nodes 200000 --playouts 800 --threads 2"]="a cluster-sized expansion (200,000 nodes: CPU-hours)"
    ["gounki match --a mcts:extend=3,clock_moves=25 --b mcts:extend=0,clock_moves=25 --games 400 --threads 2 --tc 4+0.05 --seed 11"]="the measurement the README quotes (400 games under a clock: about 13 minutes)"
    ["gounki match --a mcts --b mcts:extend=0,clock_moves=25 --games 400 --threads 2 --tc 4+0.05 --seed 14"]="the measurement the README quotes (400 games under a clock: about 15 minutes)"
    ["gounki match --a mcts:playouts=200 --b ab:depth=7,eval=classic,id=off --games 400 --threads 2 --seed 51 --openings random:2"]="the measurement the README quotes (400 games against the depth-7 robot: about 85 minutes)"
    ["gounki match --game gobs --a mcts:playouts=800 --b mcts:playouts=800,quiesce=0 --games 200 --threads 2 --seed 6"]="the measurement docs/HACKING.md quotes (200 Gobs games at 800 playouts: about 34 minutes)"
    ["gounki match --game gobs --a mcts:playouts=800 --b ab:depth=3 --games 40 --threads 2 --seed 9"]="the measurement docs/HACKING.md quotes (40 Gobs games against alpha-beta: about 5 minutes)"
    ["gounki match --a mcts:time=0.5,early_stop=on --b mcts:time=0.5,early_stop=off --games 200 --threads 2 --seed 1"]="the measurement the README quotes (200 games at 0.5 s a move: about 40 minutes)"
)

extract() {
    awk '
    function emit(kind, cmd) { printf "%d\t%s\t%s\n", start, kind, cmd }
    function iscmd(s) { return s ~ /^(build\/)?gounki( |$)/ || s ~ /^mpirun [^|]*gounki / }
    FNR == 1 { fence = 0; pend = "" }
    /^[ \t]*```/ { fence = !fence; next }
    {
        line = $0
        if (pend != "") {
            s = line; sub(/^[ \t]+/, "", s); pend = pend " " s
            if (pend ~ /\\$/) { sub(/[ \t]*\\$/, "", pend); next }
            emit(kind, pend); pend = ""; next
        }
        if (fence || line ~ /^    /) {
            s = line; sub(/^[ \t]+/, "", s); sub(/^\$ +/, "", s)
            if (iscmd(s)) {
                start = FNR; kind = "block"
                if (s ~ /\\$/) { sub(/[ \t]*\\$/, "", s); pend = s; next }
                emit(kind, s)
            }
            next
        }
        rest = line
        while (match(rest, /`[^`]+`/)) {
            s = substr(rest, RSTART + 1, RLENGTH - 2); rest = substr(rest, RSTART + RLENGTH)
            sub(/^\$ +/, "", s)
            if (iscmd(s)) { start = FNR; kind = "inline"; emit(kind, s) }
        }
    }' "$1"
}

# Is this a synopsis rather than a command?  Quoted strings and comments do not count.
synopsis() {
    local s
    s=$(printf '%s' "$1" | sed -e 's/"[^"]*"//g' -e "s/'[^']*'//g" -e 's/ #.*$//')
    case $s in *'['* | *'...'* | *'\|'*) return 0 ;; esac
    printf ' %s ' "$s" | grep -Eq '[ =,:](N|R|D|K|P|S|T|E|I|L|Q|DIR|FILE|SPEC|BOOK|DEPTH|SQ|SQUARE|LIST|OUT|NAME|COMMAND|STR|SIDE)[ ,=]'
}

# An inline span that only names a subcommand (`gounki match`, `gounki book stats`) or one
# of its flags (`gounki match --pgn`), rather than a whole command.
reference() {
    local w last=
    for w in $1; do last=$w; done
    case $last in --help) return 1 ;; -*) return 0 ;; esac
    for w in $1; do
        case $w in gounki | build/gounki | [a-z]*) ;; *) return 1 ;; esac
    done
    return 0
}

has_mpi=1
command -v mpirun > /dev/null 2>&1 || has_mpi=0
has_rsvg=1
command -v rsvg-convert > /dev/null 2>&1 || has_rsvg=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

ran=0
skipped=0
for doc in "$SRC"/README.md "$SRC"/docs/*.md; do
    name=${doc#"$SRC"/}
    [ -n "${DOCS_ONLY:-}" ] && [ "$DOCS_ONLY" != "$name" ] && continue
    W=$T/$(echo "$name" | tr / _)
    mkdir -p "$W/bin" "$W/build"
    ln -s "$GOUNKI" "$W/bin/gounki"
    ln -s "$GOUNKI" "$W/build/gounki"
    for d in tests books weights scripts docs; do ln -s "$SRC/$d" "$W/$d"; done
    while IFS=$'\t' read -r line kind cmd; do
        where="$name:$line"
        if [ -n "${SKIP[$cmd]+x}" ]; then
            echo "skip $where: $cmd  (${SKIP[$cmd]})"
            skipped=$((skipped + 1))
            continue
        fi
        if synopsis "$cmd" || { [ "$kind" = inline ] && reference "$cmd"; }; then
            continue
        fi
        case $cmd in *--png*) if [ $has_rsvg = 0 ]; then
            echo "skip $where: no rsvg-convert: $cmd"; skipped=$((skipped + 1)); continue
        fi ;; esac
        case $cmd in mpirun*) if [ $has_mpi = 0 ]; then
            echo "skip $where: no mpirun: $cmd"; skipped=$((skipped + 1)); continue
        fi ;; esac
        ran=$((ran + 1))
        log=$W/cmd$ran.out
        t0=$(date +%s.%N)
        (cd "$W" && PATH="$W/bin:$PATH" timeout -k 5 "$limit" bash -c "$cmd") < /dev/null > "$log" 2>&1
        rc=$?
        dt=$(echo "$(date +%s.%N) - $t0" | bc)
        if [ $rc != 0 ]; then
            printf 'FAIL %s: exit %d after %.1fs: %s\n' "$where" $rc "$dt" "$cmd"
            tail -n 3 "$log" | sed 's/^/    /'
            fail=1
        else
            printf 'ok   %s (%.1fs): %s\n' "$where" "$dt" "$cmd"
        fi
    done < <(extract "$doc")
done
# Moves quoted in prose: every `--moves "..."` span of the docs is legal from the start, and
# so is the first example move of the notation paragraph (README) and of `play --help`.
if [ -z "${DOCS_ONLY:-}" ]; then
    while IFS= read -r m; do
        ran=$((ran + 1))
        "$GOUNKI" moves --moves "$m" --limit 1 > /dev/null 2>&1 ||
            { echo "FAIL: the docs' --moves \"$m\" is not legal from the start"; fail=1; }
    done < <(grep -oh -- '`--moves "[^"`]*"`' "$SRC"/README.md "$SRC"/docs/*.md | sed 's/^`--moves "//; s/"`$//')
    first=$(sed -n '/Type a complete move in the notation/{N;p;}' "$SRC/README.md" |
        grep -o '`[^`]*`' | head -1 | tr -d '`')
    help=$("$GOUNKI" play --help | grep -o 'e\.g\. [^,]*' | head -1 | cut -c6-)
    for m in "$first" "$help"; do
        [ -n "$m" ] || { echo "FAIL: no first example move found"; fail=1; continue; }
        "$GOUNKI" moves | grep -qx -- "$m" ||
            { echo "FAIL: the example move '$m' is not legal from the start"; fail=1; }
    done
fi
echo "$ran commands run, $skipped skipped"
[ $((ran + skipped)) -gt 0 ] || { echo "FAIL: no command found in the docs"; fail=1; }
exit $fail
