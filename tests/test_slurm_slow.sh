#!/usr/bin/env bash
# tests/test_slurm_slow.sh -- the job scripts of scripts/slurm/ under a real one-node SLURM.
# Installs slurm-wlm and munge if they are missing (root and apt-get; otherwise skipped),
# writes a one-node slurm.conf in a temporary directory, starts munged, slurmctld and
# slurmd itself and submits the job scripts with sbatch.  Checks: a plain self-play run
# completes (log verify --complete) and its rank with 2 threads is bound to 2 CPUs
# (srun -c); `scontrol requeue`, `scancel --signal=TERM` (what the time limit sends) and
# `kill -9` of one of two ranks (the script's own requeue), each in mid-run, end with
# exactly N games, the very games of the plain run; the book job killed likewise, and
# requeued by `scontrol requeue`, makes the plain expansion's book byte for byte; a usage
# error is not requeued.  GK_SLURM_ALL=1 adds kill -9 of both ranks, preemption by a job
# of a higher-tier partition (PreemptMode=REQUEUE) and the book job stopped by `scancel
# --signal=TERM` (CI's 30 minutes hold the cases above only).  The daemons and every process of
# this cluster are stopped at the end, whatever happens.  Prints the games kept and the
# time each fault took to recover (docs/CLUSTER.md).  CRED_EXPIRE and SCHED_INTERVAL
# (default 5 and 2 s; SLURM's own are 120 and 60) set what a requeue waits.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
JOB=$SRC/scripts/slurm/selfplay.sbatch
skip() { echo "test_slurm_slow: skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (it starts munged, slurmctld and slurmd)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (a node of 2 CPUs, 2 ranks at once)"
need=()
for p in sbatch:slurm-wlm slurmctld:slurm-wlm slurmd:slurm-wlm munged:munge mungekey:munge; do
    command -v "${p%%:*}" >/dev/null || need+=("${p#*:}")
done
if ((${#need[@]})); then
    command -v apt-get >/dev/null || skip "no apt-get to install ${need[*]}"
    echo "test_slurm_slow: installing slurm-wlm munge"
    { timeout 300 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq \
        --no-install-recommends slurm-wlm munge; } >/dev/null 2>&1 ||
        skip "cannot install slurm-wlm and munge (no network?)"
fi

chmod 755 "$T" # munged wants its socket's directories searchable by all
export SLURM_CONF=$T/slurm.conf
PIDS=()
# Everything this cluster started carries SLURM_CONF=$T/slurm.conf in its environment
# (slurmstepd, the batch script, srun, the ranks): stop exactly those.
ours() {
    local p
    for p in /proc/[0-9]*; do
        [ "${p#/proc/}" = $$ ] && continue
        { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qx "SLURM_CONF=$T/slurm.conf" &&
            echo "${p#/proc/}"
    done
}
cleanup() {
    set +e
    scancel --full --quiet $(squeue -h -o %i 2>/dev/null) 2>/dev/null
    sleep 1
    kill -TERM "${PIDS[@]}" 2>/dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "${PIDS[@]}" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "${PIDS[@]}" $(ours) 2>/dev/null
    wait 2>/dev/null
    if [ -n "${KEEP:-}" ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

# ---- the cluster: munged with a key of its own, one node of 2 CPUs
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log"
chmod 700 "$T/munge"
mungekey -c -k "$T/munge/key" >/dev/null 2>&1 || dd if=/dev/urandom of="$T/munge/key" bs=1 count=1024 2>/dev/null
chmod 600 "$T/munge/key"
munged -F -f --key-file="$T/munge/key" --socket="$T/munge/sock" --pid-file="$T/munge/pid" \
    --seed-file="$T/munge/seed" --log-file="$T/log/munged.log" >"$T/log/munged.out" 2>&1 &
PIDS+=($!)
port=$((20000 + $$ % 20000))
# task/affinity (no cgroups needed) makes a rank's CPUs visible in its affinity mask.
# cred_expire is also the time a requeued job must wait before it may start again
# (SLURM's default 120 s); sched_interval the period of the scheduler's main loop (60 s).
cat >"$SLURM_CONF" <<EOF
ClusterName=gktest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/sock,cred_expire=${CRED_EXPIRE:-5}
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=${SCHED_INTERVAL:-2}
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=10
MinJobAge=3600
NodeName=localhost CPUs=2 State=UNKNOWN
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP PriorityTier=1
PartitionName=urgent Nodes=localhost MaxTime=INFINITE State=UP PriorityTier=2
EOF
for _ in $(seq 50); do [ -S "$T/munge/sock" ] && break; sleep 0.1; done
[ -S "$T/munge/sock" ] || { cat "$T/log/munged.out"; fail "munged did not start"; }
slurmctld -D -f "$SLURM_CONF" >"$T/log/slurmctld.out" 2>&1 &
PIDS+=($!)
sleep 1
slurmd -D -N localhost -f "$SLURM_CONF" >"$T/log/slurmd.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 60); do [ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && break; sleep 0.5; done
[ "$(sinfo -h -o %T 2>/dev/null)" = idle ] ||
    { tail -5 "$T"/log/*.out; fail "the node did not come up: $(sinfo 2>&1)"; }
echo "test_slurm_slow: SLURM $(sinfo -V | cut -d' ' -f2) up on port $port"

# ---- jobs
N=600
export GOUNKI=$G GAMES=$N PLAYOUTS=150 SEED=7 EXTRA="--frame-games 8" MAX_RESTARTS=3
submit() { # NAME SBATCH-ARGS...: the job's id
    local name=$1
    shift
    OUT=$T/$name sbatch --parsable -o "$T/$name.out" "$@" "$JOB"
}
field() { scontrol -o show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
wait_end() { # JOB: waits until the job has ended for good; prints its state and restarts
    local s
    for _ in $(seq 1200); do
        s=$(field "$1" JobState)
        case $s in
        PENDING | RUNNING | REQUEUED | COMPLETING | CONFIGURING | SUSPENDED | "") ;;
        *) # an end for good, not a passing state of a requeue: the same a second later
            sleep 1
            [ "$(field "$1" JobState)" = "$s" ] && { echo "$s $(field "$1" Restarts)"; return; } ;;
        esac
        sleep 0.5
    done
    echo "TIMEOUT -"
}
wait_line() { # FILE PATTERN: waits until FILE holds a line matching PATTERN
    for _ in $(seq 240); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.5; done
    cat "$1" 2>/dev/null
    fail "$1: no line '$2'"
}
ranks_of() { # NAME: the pids of the run's ranks (not srun's, whose command line is alike)
    local p
    for p in $(pgrep -f "selfplay --games $N --run $T/$1 "); do
        [ "$(readlink -f "/proc/$p/exe")" = "$(readlink -f "$G")" ] && echo "$p"
    done
    true
}
check_run() { # NAME JOB RESTARTS [GAMES]
    local name=$1 n=${4:-$N} end
    end=$(wait_end "$2")
    [ "$end" = "COMPLETED $3" ] ||
        { cat "$T/$name.out"; fail "$name: job $2 ended '$end', not 'COMPLETED $3' (state, restarts)"; }
    "$G" log verify --complete "$T/$name" >"$T/$name.verify" ||
        { cat "$T/$name.verify"; fail "$name: log verify --complete"; }
    grep -q "$n games, $n distinct, 0 duplicates" "$T/$name.verify" || fail "$name: not $n games"
    grep -q "run complete: $n games" "$T/$name.out" || fail "$name: no 'run complete' line"
}
stamp() { date -d "$(sed -n "s/^== \([0-9-]* [0-9:]*\) job [0-9]*: $1.*/\1/p" "$T/$2.out" | head -1)" +%s; }

# 1. plain: one rank with 2 threads, bound to 2 CPUs by srun -c
j=$(submit plain --ntasks-per-node=1 --cpus-per-task=2)
wait_line "$T/plain.out" 'to play on'
pid=$(ranks_of plain | head -1)
[ -n "$pid" ] || fail "plain: no rank running"
cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$pid/status")
ncpus=0
for r in ${cpus//,/ }; do ncpus=$((ncpus + ${r#*-} - ${r%-*} + 1)); done
echo "plain: the rank's CPUs: $cpus"
[ "$ncpus" = 2 ] || fail "plain: a rank with 2 threads is bound to CPUs '$cpus', not 2 CPUs"
check_run plain "$j" 0
grep -q '1 rank(s) x 2 thread(s)' "$T/plain.out" || fail "plain: not 1 rank x 2 threads"
echo "plain: $N games, complete"

# A fault in the middle of a run of 2 ranks x 1 thread; the job must end COMPLETED after
# one restart with the plain run's games.  Prints games kept and the time to restart.
fault() { # NAME HOW: requeue (scontrol requeue), term (scancel --signal=TERM), kill1 / kill2
    local name=$1 how=$2 j t0 victims kept
    j=$(submit "$name" --ntasks-per-node=2)
    wait_line "$T/$name.out" 'to play on'
    sleep 3
    victims=$(ranks_of "$name")
    [ "$(echo $victims | wc -w)" = 2 ] || { cat "$T/$name.out"; fail "$name: not 2 ranks running: $victims"; }
    t0=$(date +%s)
    case $how in
    requeue) scontrol requeue "$j" ;;
    term) scancel --signal=TERM "$j" ;;
    kill1) kill -KILL $(echo $victims | cut -d' ' -f2) ;;
    kill2) kill -KILL $victims ;;
    preempt) # a job of the higher-tier partition that needs the whole node
        sbatch --parsable -p urgent -n 2 -o "$T/$name.urgent.out" --wrap "sleep 5" >"$T/$name.urgent" ;;
    esac
    check_run "$name" "$j" 1
    cmp -s <("$G" log cat "$T/$name") <("$G" log cat "$T/plain") || fail "$name: games differ"
    kept=$(sed -n "s/.*: \([0-9]*\) of $N games done.*/\1/p" "$T/$name.out" | sed -n 2p)
    [ -n "$kept" ] && [ "$kept" -lt $N ] || { cat "$T/$name.out"; fail "$name: not stopped mid-way"; }
    case $how in
    requeue | term | preempt)
        grep -q "stopped by SIGTERM: $kept of $N games kept" "$T/$name.out" ||
            { cat "$T/$name.out"; fail "$name: no clean stop with $kept games kept"; }
        ;;
    esac
    case $how in
    term | kill*)
        grep -q 'run incomplete: requeued (restart 1 of at most 3)' "$T/$name.out" ||
            { cat "$T/$name.out"; fail "$name: the script did not requeue"; }
        ;;
    esac
    echo "$name: $kept of $N games kept, running again after $(($(stamp 'restart 1:' "$name") - t0)) s; $N games at the end, the plain run's"
}
# 2. scontrol requeue: the ranks stop on SIGTERM, SLURM requeues the job itself
fault requeue requeue
# 3. scancel --signal=TERM (what the time limit and preemption send): a clean stop, the
#    script finds the run incomplete and requeues
fault term term
# 4. kill -9 of one of two ranks: SLURM ends the step, the script requeues
fault kill kill1
# 5. preemption by a job of a higher PriorityTier (PreemptMode=REQUEUE): SLURM stops the
#    ranks as for scontrol requeue, runs the other job, then the requeued one
#    (with GK_SLURM_ALL=1: CI's 30 minutes hold the required cases only)
if [ -n "${GK_SLURM_ALL:-}" ]; then
    fault preempt preempt
    [ "$(wait_end "$(cat "$T/preempt.urgent")")" = "COMPLETED 0" ] || fail "preempt: the urgent job did not complete"
fi
if [ -n "${GK_SLURM_ALL:-}" ]; then
    fault killall kill2 # every rank at once
fi

# A duplicate submission on a running run's directory stops at once, not requeued, and
# the first job ends as it would have alone.
j=$(submit dup --ntasks-per-node=1)
wait_line "$T/dup.out" 'to play on'
j2=$(OUT=$T/dup sbatch --parsable -o "$T/dup2.out" --ntasks-per-node=1 "$JOB")
end=$(wait_end "$j2")
[ "$end" = "FAILED 0" ] || { cat "$T/dup2.out"; fail "dup: the duplicate ended '$end', not FAILED unrequeued"; }
grep -q "another job holds $T/dup (job $j on .*): not started, not requeued" "$T/dup2.out" ||
    { cat "$T/dup2.out"; fail "dup: no message naming the first job"; }
check_run dup "$j" 0
cmp -s <("$G" log cat "$T/dup") <("$G" log cat "$T/plain") || fail "dup: games differ"
echo "duplicate: refused at once (job $j2 FAILED, not requeued); the first job complete"

if [ -n "${GK_SLURM_ALL:-}" ]; then
    # The time limit: SIGTERM 30 s before a 1-minute limit, again and again until done.
    j=$(GAMES=800 submit timelimit --ntasks-per-node=2 --time=1 --signal=TERM@30)
    end=$(wait_end "$j")
    r=${end#* }
    [ "${end% *}" = COMPLETED ] && [ "$r" -ge 1 ] ||
        { cat "$T/timelimit.out"; fail "timelimit: job ended '$end'"; }
    check_run timelimit "$j" "$r" 800
    echo "time limit: 800 games after $r restarts; kept at each stop: $(sed -n 's/.*stopped by SIGTERM: \([0-9]*\) of.*/\1/p' "$T/timelimit.out" | tr '\n' ' ')"
fi

# 6. the book job: a plain expansion, one that loses a rank to kill -9 mid-way (the
#    script requeues it), one requeued by `scontrol requeue` and one stopped by `scancel
#    --signal=TERM` make the same book byte for byte.
book_job() { # NAME SBATCH-ARGS...: the job's id
    local name=$1
    shift
    "$G" book build --out "$T/$name.book" >/dev/null
    BOOK=$T/$name.book NODES=1500 PLAYOUTS=200 BATCH=8 EXTRA= \
        sbatch --parsable -o "$T/$name.out" "$@" "$SRC/scripts/slurm/book.sbatch"
}
book_check() { # NAME JOB RESTARTS
    local end
    end=$(wait_end "$2")
    [ "$end" = "COMPLETED $3" ] || { cat "$T/$1.out"; fail "$1: job $2 ended '$end'"; }
    grep -q "book complete: 150[0-9] nodes (target 1500)" "$T/$1.out" ||
        { cat "$T/$1.out"; fail "$1: no 'book complete' line"; }
    [ ! -e "$T/$1.book.journal" ] || fail "$1: the journal is left"
}
j=$(book_job book --ntasks-per-node=2)
book_check book "$j" 0
j=$(book_job bookkill --ntasks-per-node=2)
wait_line "$T/bookkill.out" 'target 1500 nodes'
sleep 3
victims=$(for p in $(pgrep -f "book expand $T/bookkill.book "); do
    [ "$(readlink -f "/proc/$p/exe")" = "$(readlink -f "$G")" ] && echo "$p"; done)
[ "$(echo $victims | wc -w)" = 2 ] || fail "bookkill: not 2 ranks running: $victims"
t0=$(date +%s)
kill -KILL $(echo $victims | cut -d' ' -f2)
book_check bookkill "$j" 1
grep -q 'book incomplete (a journal of unfinished work is left): requeued (restart 1 of at most 3)' \
    "$T/bookkill.out" || { cat "$T/bookkill.out"; fail "bookkill: the script did not requeue"; }
cmp -s "$T/book.book" "$T/bookkill.book" || fail "bookkill: the book differs from the plain run's"
kept=$(sed -n 's/.*(\([0-9]*\) replayed from the journal).*/\1/p' "$T/bookkill.out" | sed -n 2p)
echo "book: $kept batches kept (journal) at kill -9 of a rank, running again after $(($(stamp 'restart 1:' bookkill) - t0)) s; the plain run's book byte for byte"
# scontrol requeue (SLURM requeues) and scancel --signal=TERM (the script requeues): the
# ranks finish the batch in progress, write the book and stop; the next attempt goes on.
for how in requeue ${GK_SLURM_ALL:+term}; do
    j=$(book_job "book$how" --ntasks-per-node=2)
    wait_line "$T/book$how.out" 'target 1500 nodes'
    sleep 3
    t0=$(date +%s)
    case $how in
    requeue) scontrol requeue "$j" ;;
    term) scancel --signal=TERM "$j" ;;
    esac
    book_check "book$how" "$j" 1
    kept=$(sed -n 's/^book expand: stopped by a signal: [^:]*: \([0-9]*\) nodes.*/\1/p' "$T/book$how.out" | head -1)
    [ -n "$kept" ] && [ "$kept" -lt 1500 ] || { cat "$T/book$how.out"; fail "book$how: no clean stop mid-way"; }
    cmp -s "$T/book.book" "$T/book$how.book" || fail "book$how: the book differs from the plain run's"
    echo "book, $how: stopped with $kept nodes kept, running again after $(($(stamp 'restart 1:' "book$how") - t0)) s; the plain run's book byte for byte"
done

# 7. a usage error is not requeued and fails the job
j=$(EXTRA="--playouts 0" submit usage --ntasks-per-node=1)
end=$(wait_end "$j")
[ "$end" = "FAILED 0" ] || { cat "$T/usage.out"; fail "usage: job ended '$end', not FAILED unrequeued"; }
grep -q 'usage error (exit 2): not requeued' "$T/usage.out" || fail "usage: no message"
echo "usage error: FAILED, not requeued"
echo "test_slurm_slow: ok"
