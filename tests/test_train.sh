#!/bin/bash
# tests/test_train.sh -- `gounki train`: a tiny run under mpirun, killed with SIGKILL at
# several moments and resumed, must end with the same weights and report as the same run
# left alone (every phase is deterministic); bad resumes are refused in one line.
set -u
. "$(dirname "$0")/lib.sh"
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
MPI=(mpirun "${root[@]}" --oversubscribe --bind-to none -np 2)
START="${SRC:?}/tests/fixtures/tune/gounki-material.txt"
ARGS=(--generations 2 --games 24 --playouts 24 --match-games 12 --ladder-games 8 --window 2
    --policy --threads 1 --min-positions 100 --from "$START" --quiet)

strip() { # the parts of a run that must not depend on interruptions
    for f in "$1"/gen-*/weights.txt; do
        echo "== $(basename "$(dirname "$f")")"
        grep -v '^provenance\|^checksum' "$f"
    done
    # the table without the games played by this process (a resumed self-play phase
    # counts only its own), games/h, and the self-play totals line
    awk '!/^self-play:/ { $3 = ""; $4 = ""; print }' "$1/report.txt"
}

# 1. the reference run, left alone
if ! "${MPI[@]}" "$G" train --run "$T/ref" "${ARGS[@]}" >"$T/ref.out" 2>&1; then
    echo "FAIL: reference run" >&2
    cat "$T/ref.out" >&2
    exit 1
fi
grep -q "^plot: $T/ref/ladder.svg" "$T/ref.out" || {
    echo "FAIL: no plot path printed" >&2
    fail=1
}
grep -q "</svg>" "$T/ref/ladder.svg" || {
    echo "FAIL: ladder.svg incomplete" >&2
    fail=1
}

# the run's logs, generation by generation (not "ok" about an empty top directory)
if ! "$G" log verify "$T/ref" >"$T/verify.out" 2>&1 ||
    ! grep -q '^verify: training run, 2 generations with logs, .*: ok' "$T/verify.out"; then
    echo "FAIL: log verify of the training run:" >&2
    tail -3 "$T/verify.out" >&2
    fail=1
fi

# 2. the same run killed at several moments, resumed each time
for delay in 0.5 1.5 2.5; do
    setsid "${MPI[@]}" "$G" train --run "$T/kill" "${ARGS[@]}" >"$T/kill.out" 2>&1 &
    pid=$!
    sleep "$delay"
    # SIGKILL to the whole job, as a batch system does: mpirun's process group, then the
    # ranks (Open MPI puts each in a process group of its own), found by this test's own
    # run directory in their command line
    kill -KILL -- "-$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    for r in $(pgrep -f -- "--run $T/kill"); do kill -KILL "$r" 2>/dev/null; done
    for _ in $(seq 100); do # until they are gone and their shard locks released
        pgrep -f -- "--run $T/kill" >/dev/null || break
        sleep 0.1
    done
done
if ! "${MPI[@]}" "$G" train --run "$T/kill" "${ARGS[@]}" >"$T/kill.out" 2>&1; then
    echo "FAIL: resumed run" >&2
    cat "$T/kill.out" >&2
    fail=1
fi
if ! diff <(strip "$T/ref") <(strip "$T/kill") >"$T/diff"; then
    echo "FAIL: the killed and resumed run differs from the reference:" >&2
    head -20 "$T/diff" >&2
    fail=1
fi

# 3. bad resumes: other settings, a corrupt state file (one line, exit 1)
expect_error() {
    local pat=$1
    shift
    "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ "$rc" != 1 ] || [ "$(wc -l <"$T/err")" != 1 ] || ! grep -q -- "$pat" "$T/err"; then
        echo "FAIL: $* -> rc $rc:" >&2
        cat "$T/err" >&2
        fail=1
    fi
}
expect_error "other settings: --games differs (here 30, the run's 24)" "$G" train --run "$T/ref" "${ARGS[@]}" --games 30
expect_error "other settings: --from (the start weights' hash) differs" "$G" train --run "$T/ref" \
    "${ARGS[@]}" --from "$SRC/weights/gounki-default.txt"
# a bad --from leaves no run directory behind
expect_error "/nonexistent" "$G" train --run "$T/nofrom" --from /nonexistent
[ -e "$T/nofrom" ] && { echo "FAIL: train --from /nonexistent left $T/nofrom" >&2; fail=1; }
# a run that failed before its first generation finished restarts with other settings
SMALL=(--generations 1 --games 8 --playouts 16 --match-games 4 --ladder-games 4 --window 1
    --threads 1 --from "$START" --quiet)
expect_error "at least 100000 are needed" "$G" train --run "$T/early" "${SMALL[@]}" --min-positions 100000
[ -d "$T/early/gen-001/logs" ] || { echo "FAIL: the failed run has no generation 1 logs" >&2; fail=1; }
if ! "$G" train --run "$T/early" "${SMALL[@]}" --min-positions 50 --seed 4 >"$T/early.out" 2>&1; then
    echo "FAIL: a run that never finished a generation was not restarted:" >&2
    tail -3 "$T/early.out" >&2
    fail=1
fi
"$G" log verify --complete "$T/early/gen-001/logs" >"$T/early.verify" 2>&1 ||
    { echo "FAIL: restarted run's logs: $(tail -2 "$T/early.verify")" >&2; fail=1; }
expect_error "other settings: --seed differs (here 5, the run's 4)" "$G" train --run "$T/early" \
    "${SMALL[@]}" --min-positions 50 --seed 5
# search parameters (--set/--mcts, as in selfplay): into every generation's self-play (its
# manifest) and the state's settings; a resume with others, or none, is refused
if ! "$G" train --run "$T/set" "${SMALL[@]}" --min-positions 50 --set c_puct=2 \
    --mcts playout=random >"$T/set.out" 2>&1; then
    echo "FAIL: train --set:" >&2
    tail -3 "$T/set.out" >&2
    fail=1
fi
grep -aq 'c_puct=2 .*playout=1 ' "$T/set/gen-001/logs/manifest.gkm" ||
    { echo "FAIL: train --set did not reach the self-play settings" >&2; fail=1; }
grep -q '^settings .* search c_puct=2,playout=random$' "$T/set/state.txt" ||
    { echo "FAIL: train --set is not in the state's settings" >&2; fail=1; }
expect_error "other settings: --set differs (here c_puct=3,playout=random, the run's c_puct=2,playout=random)" \
    "$G" train --run "$T/set" "${SMALL[@]}" --min-positions 50 --set c_puct=3 --mcts playout=random
expect_error "other settings: --set differs (here none, the run's c_puct=2,playout=random)" \
    "$G" train --run "$T/set" "${SMALL[@]}" --min-positions 50
expect_error "other settings: --set differs (here c_puct=2, the run's none)" \
    "$G" train --run "$T/early" "${SMALL[@]}" --min-positions 50 --seed 4 --set c_puct=2
for bad in "--set seed=3:seeds each game's search" "--set time=1:a budget in time" \
    "--time 1:bad or incomplete option '--time'" "--playouts 0:0 is out of range" \
    "--set c_puct=1,,fpu=0:empty item 2"; do
    "$G" train --run "$T/never" ${bad%%:*} >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" != 2 ] || [ "$(wc -l <"$T/err")" != 1 ] || ! grep -q -- "${bad#*:}" "$T/err"; then
        echo "FAIL: train ${bad%%:*} -> rc $rc: $(cat "$T/err")" >&2
        fail=1
    fi
done
[ -e "$T/never" ] && { echo "FAIL: a refused train command left $T/never" >&2; fail=1; }
# progress under mpirun into a file: plain lines, no escape codes (Open MPI gives each
# rank's standard output a pseudo-terminal, so isatty() alone would say "terminal")
GK_PROGRESS_EVERY=0 "${MPI[@]}" "$G" train --run "$T/prog" --generations 1 --games 24 --playouts 24 \
    --match-games 12 --ladder-games 0 --threads 1 --min-positions 100 --from "$START" \
    >"$T/prog.out" 2>&1 || { echo "FAIL: progress run: $(tail -1 "$T/prog.out")" >&2; fail=1; }
grep -q '^selfplay: [0-9]*/24 games' "$T/prog.out" ||
    { echo "FAIL: no plain progress line under mpirun" >&2; fail=1; }
if grep -q $'\e' "$T/prog.out"; then
    echo "FAIL: escape codes in the progress written to a file under mpirun" >&2
    fail=1
fi
cp -r "$T/ref" "$T/bad"
sed -i 's/^gen 1 phases 15/gen 1 phases 14/' "$T/bad/state.txt"
expect_error "checksum mismatch" "$G" train --run "$T/bad" "${ARGS[@]}"
expect_error "the directory name" "$G" train --run "$T/a,b" "${ARGS[@]}"
exit $fail
