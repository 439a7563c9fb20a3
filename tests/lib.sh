# tests/lib.sh -- the preamble the shell tests share (binary, sources, sanitizers, temp dir)
# Sourced as `. "$(dirname "$0")/lib.sh"`.  Sets G (the gounki binary, from $GOUNKI), SRC
# (the source tree), the sanitizer settings for runs under Open MPI (its own leaks are
# suppressed), T (a temporary directory removed at exit; a test that needs more at exit
# sets its own trap and removes $T there), fail() (fail and stop), and for the tests that go
# on after a failure the flag fail=0, bad() (set it, with a line on stderr) and has FILE
# PATTERN WHAT (bad unless FILE holds PATTERN); a test ends with `exit $fail` or its like.
# kill_session (below) kills a run the way a dying node does.
G=${GOUNKI:?GOUNKI must name the gounki binary}
SRC=${SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
export LSAN_OPTIONS="suppressions=$SRC/tests/lsan-mpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
has() { grep -q -e "$2" "$1" || bad "$3 (looked for '$2' in $1)"; }
# kill_session PID: SIGKILL every process of PID's session at once, as when a node dies
# (start the run with setsid: mpirun puts its ranks in process groups of their own, not in
# sessions of their own), then waits for them; fail()s if any is still alive after 10 s
# (a process in the kernel, an fsync on a loaded disk, dies only once it returns: 2 s were
# once too few with the whole suite running at -j2).
kill_session() {
    kill -KILL $(ps -o pid= -s "$1") 2>/dev/null || true
    wait "$1" 2>/dev/null || true
    for _ in $(seq 50); do [ -z "$(ps -o pid= -s "$1")" ] && break; sleep 0.2; done
    [ -z "$(ps -o pid= -s "$1")" ] || fail "processes of the killed run are still alive"
}
