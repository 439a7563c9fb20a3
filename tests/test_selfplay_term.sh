#!/usr/bin/env bash
# SIGTERM / SIGINT stop a self-play run cleanly: a single process and the ranks of an
# mpirun job (signalled directly, as srun and SLURM's preemption do) exit within a few
# seconds with status 3 (the mpirun job with --stop-status 0, so that mpirun reports
# nothing), the stop is told in one line, every shard verifies with no torn frame, the
# finished games are kept, and rerunning the command completes the run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
now() { date +%s%N; }
ARGS=(--games 40 --playouts 400 --seed 5 --frame-games 4)

stop_test() { # NAME SIGNAL mpi|solo [STOP-STATUS]
    local name=$1 sig=$2 how=$3 want=${4:-3} pid t0 t1 rc targets more=()
    [ -n "${4:-}" ] && more=(--stop-status "$4")
    if [ "$how" = mpi ]; then
        setsid mpirun --allow-run-as-root --oversubscribe -np 2 "$G" selfplay "${ARGS[@]}" \
            "${more[@]}" --out "$T/$name" >"$T/$name.log" 2>&1 &
    else
        setsid "$G" selfplay "${ARGS[@]}" "${more[@]}" --out "$T/$name" >"$T/$name.log" 2>&1 &
    fi
    pid=$!
    # Signal once the run has set up (every rank has its handler) and played a little.
    for _ in $(seq 300); do grep -q 'to play on' "$T/$name.log" && break; sleep 0.1; done
    grep -q 'to play on' "$T/$name.log" || { cat "$T/$name.log"; fail "$name: did not start"; }
    # ... and stored a frame, so that there are finished games to keep (a fixed wait
    # depended on the speed of the search and of the machine).
    for _ in $(seq 600); do
        [ -n "$(find "$T/$name" -name 'shard-*.gkz' -size +0c 2>/dev/null)" ] && break
        sleep 0.1
    done
    sleep 0.2
    targets=$pid
    [ "$how" = mpi ] && targets=$(pgrep -P "$pid" | tr '\n' ' ')
    [ -n "$targets" ] || fail "$name: no process to signal"
    t0=$(now)
    kill -"$sig" $targets
    set +e
    wait "$pid"; rc=$?
    set -e
    t1=$(now)
    local ms=$(( (t1 - t0) / 1000000 ))
    echo "$name: SIG$sig -> exit $rc after $ms ms"
    [ $rc = "$want" ] || { cat "$T/$name.log"; fail "$name: exit status $rc, not $want"; }
    [ $ms -lt 10000 ] || fail "$name: took $ms ms to stop"
    grep -q "selfplay: stopped by SIG$sig: " "$T/$name.log" || { cat "$T/$name.log"; fail "$name: no summary"; }
    # The stop is one line, with no launcher's complaint about a status when it is 0.
    [ "$(grep -c 'stopped\|abandoned\|non-zero' "$T/$name.log")" = 1 ] ||
        { cat "$T/$name.log"; fail "$name: the stop is not one line"; }
    "$G" log verify "$T/$name" >"$T/v.txt" || { cat "$T/v.txt"; fail "$name: does not verify"; }
    grep -q 'torn\|corrupt' "$T/v.txt" && fail "$name: a torn frame after a clean stop"
    local kept
    kept=$(sed -n 's/.* \([0-9]*\) distinct.*/\1/p' "$T/v.txt")
    grep -q "selfplay: stopped by SIG$sig: $kept of 40 games kept in $T/$name (.*); run the same command to continue" "$T/$name.log" ||
        fail "$name: $kept games stored, not what the summary says"
    "$G" selfplay "${ARGS[@]}" --quiet --out "$T/$name" 2>"$T/err" || fail "$name: resume: $(cat "$T/err")"
    "$G" log verify --complete "$T/$name" | grep -q '40 games, 40 distinct' || fail "$name: resume incomplete"
    echo "$name: $kept games kept, resumed to 40"
}

stop_test solo-term TERM solo
stop_test solo-int INT solo
stop_test mpi-term TERM mpi 0
cmp -s <("$G" log cat "$T/solo-term") <("$G" log cat "$T/mpi-term") || fail "the resumed runs differ"
echo "test_selfplay_term: ok"
