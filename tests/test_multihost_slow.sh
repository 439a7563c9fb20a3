#!/usr/bin/env bash
# tests/test_multihost_slow.sh -- self-play across three hosts, network namespaces on a bridge.
# Three network namespaces joined by a bridge, `mpirun` with a hostfile and an rsh agent that enters a namespace
# (`ip netns exec`) instead of ssh, TCP only.  Checks: (a) the games are byte for byte
# those of a single process; (b) kill -9 of one host's rank, then the same command on the
# two other hosts, ends with exactly N games, the same; (c) with one host's link cut in
# mid-run the run ends on the others, complete, without a rerun (the lost rank's leases
# are leased again); (d) with a link cut, SIGTERM to the reachable ranks ends them within
# seconds, and the same command on two hosts completes the run; (g) gounki train with a
# link cut in a generation's self-play ends on hosts 1-2 (before: hung in MPI_Allreduce /
# MPI_Finalize for ever) and resumes; (h) host 3 dies (link down, then kill -9 of
# every process there, orted too): mpirun ends the job, the survivors write what they
# have, and the same command on hosts 1-2 completes it; (i) `book expand`: the book of
# one process on 3 hosts, after a cut link without a rerun, and after a cut link and
# SIGTERM or kill -9 of host 3's rank once resumed on 2 hosts; (j) the self-play job
# script outside SLURM ends the mpirun that a cut link leaves waiting.  Prints the figures of
# docs/CLUSTER.md's fault table.  The namespaces, the bridge and every process in them
# are removed at the end, whatever happens; skipped where namespaces cannot be made.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
skip() { echo "test_multihost_slow: skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (ip netns)"
command -v ip >/dev/null || skip "no ip (iproute2)"
command -v mpirun >/dev/null || skip "no mpirun"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Names of this run's own (interface names are at most 15 characters).
tag=$(($$ % 100000))
NS=(gkh${tag}a gkh${tag}b gkh${tag}c)
BR=gkbr$tag
NET=10.$((100 + tag % 100)).$((tag / 100 % 250)).
SUBNET=${NET}0/24
MPIRUN_PIDS=()
cleanup() {
    set +e
    kill -KILL "${MPIRUN_PIDS[@]}" 2>/dev/null
    for ns in "${NS[@]}"; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
    ip link del "$BR" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
ip netns add "${NS[0]}" 2>"$T/err" || skip "cannot create a network namespace: $(cat "$T/err")"
ip link add "$BR" type bridge 2>"$T/err" || skip "cannot create a bridge: $(cat "$T/err")"
ip addr add "${NET}254/24" dev "$BR"
ip link set "$BR" up
for i in 0 1 2; do
    [ "$i" = 0 ] || ip netns add "${NS[$i]}"
    ip link add "gkv${tag}$i" type veth peer name eth0 netns "${NS[$i]}"
    ip link set "gkv${tag}$i" master "$BR" up
    ip netns exec "${NS[$i]}" ip addr add "${NET}$((i + 1))/24" dev eth0
    ip netns exec "${NS[$i]}" ip link set eth0 up
    ip netns exec "${NS[$i]}" ip link set lo up
done
for _ in $(seq 50); do
    up=0
    for i in 0 1 2; do
        [ "$(cat "/sys/class/net/gkv${tag}$i/operstate")" = up ] && up=$((up + 1))
    done
    [ "$up" = 3 ] && break
    sleep 0.1
done

# The rsh agent: `agent HOST COMMAND...` runs COMMAND in HOST's namespace.
cat >"$T/agent" <<EOF
#!/bin/sh
h=\$1; shift
case \$h in
${NET}1) ns=${NS[0]} ;;
${NET}2) ns=${NS[1]} ;;
${NET}3) ns=${NS[2]} ;;
*) echo "agent: unknown host \$h" >&2; exit 1 ;;
esac
# The hosts share /tmp and a host name: each daemon gets session directories of its own.
mkdir -p "$T/tmp/\$ns"
OMPI_MCA_orte_tmpdir_base="$T/tmp/\$ns" exec ip netns exec \$ns /bin/sh -c "\$*"
EOF
chmod +x "$T/agent"
printf '%s slots=1\n' "${NET}1" "${NET}2" "${NET}3" >"$T/hosts3"
printf '%s slots=1\n' "${NET}1" "${NET}2" >"$T/hosts2"
mpi() { # HOSTFILE NP ARGS...: gounki $SUB (default selfplay) on the hosts, TCP between them
    local hf=$1 np=$2
    shift 2
    mpirun --hostfile "$hf" -np "$np" --oversubscribe --bind-to none \
        --mca plm_rsh_agent "$T/agent" --mca routed direct --mca btl tcp,self \
        --mca btl_tcp_if_include "$SUBNET" --mca oob_tcp_if_include "$SUBNET" "$G" "${SUB:-selfplay}" "$@"
}
where=$(mpirun --hostfile "$T/hosts3" -np 3 --mca plm_rsh_agent "$T/agent" --mca routed direct \
    --mca oob_tcp_if_include "$SUBNET" sh -c 'ip -4 -o addr show eth0' 2>"$T/err" |
    awk '{print $4}' | sort | tr '\n' ' ') || true
[ "$where" = "${NET}1/24 ${NET}2/24 ${NET}3/24 " ] ||
    fail "mpirun did not start one process on each host: '$where' $(head -c 600 "$T/err")"
echo "test_multihost_slow: 3 hosts up (${NS[*]}, $SUBNET)"

N=200
# FRAMES: the frame options (the default frames, --frame-seconds 5 and 64 games, with
# FRAMES=" "); GK_MULTIHOST_ALL=1 adds kill -9 of every rank and SIGTERM to every rank.
read -r -a frames <<<"${FRAMES:---frame-games 4}"
COMMON=(--games $N --seed 11 "${frames[@]}" --peer-timeout 5)
ARGS=("${COMMON[@]}" --playouts 120)
SLOW=("${COMMON[@]}" --playouts 300) # (d): a game in progress at the SIGTERM
"$G" selfplay "${ARGS[@]}" --quiet --out "$T/solo" 2>"$T/err" || fail "single process: $(cat "$T/err")"
"$G" log cat "$T/solo" >"$T/solo.txt"
same() { # DIR WHAT: DIR holds the N games of the single process, once each
    "$G" log verify --complete "$1" >"$T/v.txt" 2>&1 || { cat "$T/v.txt"; fail "$2: does not verify"; }
    "$G" log cat "$1" | cmp -s - "$T/solo.txt" || fail "$2: not the games of a single process"
}
games() { "$G" log verify --quick "$1" 2>/dev/null | sed -n 's/.* \([0-9]*\) distinct.*/\1/p'; }
rank_pids() { # NAMESPACE: the gounki processes in it
    local p
    for p in $(ip netns pids "$1" 2>/dev/null); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = gounki ] && echo "$p"
    done
    true
}
wait_games() { # DIR K LOG: waits until DIR holds at least K games
    for _ in $(seq 600); do [ "$(games "$1")" -ge "$2" ] 2>/dev/null && return 0; sleep 0.05; done
    tail -20 "$3"
    fail "$1 never held $2 games"
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# ---- (a) three hosts make the games of one process
mpi "$T/hosts3" 3 "${ARGS[@]}" --quiet --out "$T/a" 2>"$T/a.err" || { cat "$T/a.err"; fail "3 hosts"; }
[ "$(ls "$T"/a/shard-*.gkz | wc -l)" = 3 ] || fail "3 hosts did not write 3 shards"
same "$T/a" "3 hosts"
echo "test_multihost_slow: (a) 3 hosts: the $N games of a single process"

# ---- (b) kill -9 of host 3's rank; the same command on hosts 1 and 2
mpi "$T/hosts3" 3 "${ARGS[@]}" --out "$T/b" >"$T/b.err" 2>&1 &
MPIRUN_PIDS+=($!)
wait_games "$T/b" 20 "$T/b.err"
pid=$(rank_pids "${NS[2]}")
[ -n "$pid" ] || fail "(b): no rank on host 3"
before=$(games "$T/b")
kill -KILL $pid
t0=$(now)
rc=0
timeout 60 tail --pid="${MPIRUN_PIDS[-1]}" -f /dev/null || fail "(b): mpirun did not end after the kill"
wait "${MPIRUN_PIDS[-1]}" || rc=$?
kept=$(games "$T/b")
echo "test_multihost_slow: (b) kill -9 of host 3's rank at $before games on disk: mpirun ended" \
    "(status $rc) $(secs "$t0" "$(now)") s later with $kept of $N games kept"
t0=$(now)
mpi "$T/hosts2" 2 "${ARGS[@]}" --quiet --out "$T/b" 2>"$T/b2.err" || { cat "$T/b2.err"; fail "(b) resume"; }
same "$T/b" "(b) resumed on 2 hosts"
grep 'stopped by\|given up\|did not answer' "$T/b.err" | sed 's/^/    /' || true
echo "test_multihost_slow: (b) resumed on hosts 1-2: $N of $N games in $(secs "$t0" "$(now)") s"

# ---- (c) host 3's link cut in mid-run: the run ends on hosts 1 and 2
mpi "$T/hosts3" 3 "${ARGS[@]}" --out "$T/c" >"$T/c.err" 2>&1 &
MPIRUN_PIDS+=($!)
wait_games "$T/c" 20 "$T/c.err"
ip link set "gkv${tag}2" down
t0=$(now)
cut_at=$(games "$T/c")
for _ in $(seq 1200); do [ -z "$(rank_pids "${NS[0]}")" ] && break; sleep 0.05; done
[ -z "$(rank_pids "${NS[0]}")" ] || { tail -5 "$T/c.err"; fail "(c): rank 0 still runs 60 s after the cut"; }
t_end=$(secs "$t0" "$(now)")
grep -q 'given up as lost' "$T/c.err" || { tail -5 "$T/c.err"; fail "(c): no rank was given up"; }
for _ in $(seq 200); do [ -z "$(rank_pids "${NS[2]}")" ] && break; sleep 0.05; done
[ -z "$(rank_pids "${NS[2]}")" ] || fail "(c): the cut rank still runs"
same "$T/c" "(c) after the cut"
echo "test_multihost_slow: (c) link of host 3 cut at $cut_at games: the run ended complete," \
    "$N of $N games, $t_end s after the cut, without a rerun"
grep '^selfplay: rank\|selfplay: [0-9]* rank\|did not answer' "$T/c.err" | sed 's/^/    /' || true
sleep 3
kill -0 "${MPIRUN_PIDS[-1]}" 2>/dev/null &&
    echo "test_multihost_slow: (c) mpirun itself still runs 3 s after the ranks ended (it waits for host 3's daemon)"

# ---- (d) host 3's link cut, then SIGTERM to the ranks that can be reached
reconnect() { # mpirun itself still waits for host 3's daemon (Open MPI 4.1 has no timeout for it)
    kill -KILL "${MPIRUN_PIDS[-1]}" 2>/dev/null || true
    wait "${MPIRUN_PIDS[-1]}" 2>/dev/null || true
    for p in $(ip netns pids "${NS[2]}"); do kill -KILL "$p"; done
    ip link set "gkv${tag}2" up
    sleep 1
}
reconnect
mpi "$T/hosts3" 3 "${SLOW[@]}" --out "$T/d" >"$T/d.err" 2>&1 &
MPIRUN_PIDS+=($!)
wait_games "$T/d" 8 "$T/d.err"
ip link set "gkv${tag}2" down
sleep 0.5
live=$(rank_pids "${NS[0]}") && live="$live $(rank_pids "${NS[1]}")"
before=$(games "$T/d")
kill -TERM $live
t0=$(now)
for _ in $(seq 400); do [ -z "$(rank_pids "${NS[0]}")$(rank_pids "${NS[1]}")" ] && break; sleep 0.05; done
[ -z "$(rank_pids "${NS[0]}")$(rank_pids "${NS[1]}")" ] ||
    { tail -5 "$T/d.err"; fail "(d): the ranks did not end 20 s after SIGTERM"; }
t_term=$(secs "$t0" "$(now)")
awk -v t="$t_term" 'BEGIN { exit !(t < 10) }' || fail "(d): SIGTERM took $t_term s"
for _ in $(seq 300); do [ -z "$(rank_pids "${NS[2]}")" ] && break; sleep 0.05; done
"$G" log verify "$T/d" >"$T/v.txt" 2>&1 || { cat "$T/v.txt"; fail "(d): the stopped run does not verify"; }
kept=$(games "$T/d")
echo "test_multihost_slow: (d) link of host 3 cut, SIGTERM to hosts 1-2: their ranks ended" \
    "$t_term s later, $kept of $N games kept ($before on disk before the signal)"
grep 'stopped by' "$T/d.err" | sed 's/^/    /' || true
mpi "$T/hosts2" 2 "${SLOW[@]}" --quiet --out "$T/d" 2>"$T/d2.err" ||
    fail "(d) resume: $(tail -5 "$T/d2.err")"
"$G" log verify --complete "$T/d" >/dev/null || fail "(d) resumed: incomplete"
echo "test_multihost_slow: (d) resumed on hosts 1-2: $N of $N games"

# ---- (g) gounki train: host 3's link cut in a generation's self-play.  The ranks left
# finish the games, then end (no collective, no MPI_Finalize on the lost rank: either
# would wait for ever); the same command on hosts 1 and 2 finishes the generation.
reconnect
TRAIN=(--generations 1 --games $N --playouts 120 --threads 1 --match-games 2 --ladder-games 0 --seed 11)
SUB=train mpi "$T/hosts3" 3 "${TRAIN[@]}" --run "$T/g" >"$T/g.err" 2>&1 &
MPIRUN_PIDS+=($!)
wait_games "$T/g/gen-001/logs" 20 "$T/g.err"
ip link set "gkv${tag}2" down
t0=$(now)
cut_at=$(games "$T/g/gen-001/logs")
for _ in $(seq 1200); do [ -z "$(rank_pids "${NS[0]}")$(rank_pids "${NS[1]}")" ] && break; sleep 0.05; done
[ -z "$(rank_pids "${NS[0]}")$(rank_pids "${NS[1]}")" ] ||
    { tail -5 "$T/g.err"; fail "(g): train's ranks on hosts 1-2 still run 60 s after the cut"; }
t_end=$(secs "$t0" "$(now)")
grep -q 'lost a rank' "$T/g.err" || { tail -5 "$T/g.err"; fail "(g): no lost rank reported"; }
for _ in $(seq 400); do [ -z "$(rank_pids "${NS[2]}")" ] && break; sleep 0.05; done
[ -z "$(rank_pids "${NS[2]}")" ] || fail "(g): the cut rank of train still runs"
kept=$(games "$T/g/gen-001/logs")
echo "test_multihost_slow: (g) train, link of host 3 cut at $cut_at games: ranks 0-1 ended" \
    "$t_end s after the cut with $kept of $N games kept"
grep 'lost a rank' "$T/g.err" | sed 's/^/    /' || true
reconnect
t0=$(now)
SUB=train mpi "$T/hosts2" 2 "${TRAIN[@]}" --quiet --run "$T/g" >"$T/g2.err" 2>&1 ||
    fail "(g) resume: $(tail -5 "$T/g2.err")"
"$G" log verify --complete "$T/g/gen-001/logs" >/dev/null || fail "(g) resumed: incomplete self-play"
grep -q 'best weights:' "$T/g2.err" || fail "(g) resumed: no report: $(tail -3 "$T/g2.err")"
echo "test_multihost_slow: (g) train resumed on hosts 1-2: generation 1 done in $(secs "$t0" "$(now)") s"

# ---- (h) host 3 dies: its link down (no FIN or RST reaches the others, as at a power
# cut), then kill -9 of every process in its namespace, its orted too.  Here the orted is
# mpirun's child (the rsh agent execs into it), so mpirun sees it die, as it would see a
# node's ssh or slurmstepd end: it ends the job; the ranks left write what they have, and
# the same command on hosts 1 and 2 completes the run.
reconnect
mpi "$T/hosts3" 3 "${ARGS[@]}" --out "$T/h" >"$T/h.err" 2>&1 &
MPIRUN_PIDS+=($!)
wait_games "$T/h" 20 "$T/h.err"
ip link set "gkv${tag}2" down
for p in $(ip netns pids "${NS[2]}"); do kill -KILL "$p" 2>/dev/null || true; done
t0=$(now)
died_at=$(games "$T/h")
for _ in $(seq 1200); do [ -z "$(rank_pids "${NS[0]}")$(rank_pids "${NS[1]}")" ] && break; sleep 0.05; done
[ -z "$(rank_pids "${NS[0]}")$(rank_pids "${NS[1]}")" ] ||
    { tail -5 "$T/h.err"; fail "(h): the ranks of hosts 1-2 still run 60 s after host 3 died"; }
t_end=$(secs "$t0" "$(now)")
rc=0
timeout 30 tail --pid="${MPIRUN_PIDS[-1]}" -f /dev/null || fail "(h): mpirun did not end 30 s after the ranks"
wait "${MPIRUN_PIDS[-1]}" || rc=$?
t_mpirun=$(secs "$t0" "$(now)")
"$G" log verify "$T/h" >"$T/v.txt" 2>&1 || { cat "$T/v.txt"; fail "(h): the run left does not verify"; }
kept=$(games "$T/h")
echo "test_multihost_slow: (h) host 3 died at $died_at games on disk: the ranks of hosts 1-2 ended" \
    "$t_end s later, mpirun $t_mpirun s (status $rc), $kept of $N games kept"
ip link set "gkv${tag}2" up
t0=$(now)
mpi "$T/hosts2" 2 "${ARGS[@]}" --quiet --out "$T/h" 2>"$T/h2.err" || { cat "$T/h2.err"; fail "(h) resume"; }
same "$T/h" "(h) resumed on 2 hosts"
echo "test_multihost_slow: (h) resumed on hosts 1-2: $N of $N games in $(secs "$t0" "$(now)") s"

# ---- (i) the book expansion job: three hosts make the book of one process; with host 3's
# link cut in mid-run the expansion ends on hosts 1-2 with that very book (the cut rank's
# searches go to the others); with the link cut and SIGTERM to the reachable ranks they
# stop within seconds and the same command on hosts 1-2 ends with that book too.
reconnect
BOOKARGS=(--nodes 600 --playouts 300 --seed 3 --batch 8 --checkpoint 1000 --peer-timeout 5)
"$G" book build --out "$T/start.book" >/dev/null
cp "$T/start.book" "$T/solo.book"
"$G" book expand "$T/solo.book" "${BOOKARGS[@]}" --quiet 2>"$T/err" || fail "book, single process: $(cat "$T/err")"
cp "$T/start.book" "$T/i1.book"
SUB=book mpi "$T/hosts3" 3 expand "$T/i1.book" "${BOOKARGS[@]}" --quiet 2>"$T/i1.err" ||
    { cat "$T/i1.err"; fail "(i) book on 3 hosts"; }
cmp -s "$T/i1.book" "$T/solo.book" || fail "(i) 3 hosts made another book than one process"
echo "test_multihost_slow: (i) book expansion on 3 hosts: the book of a single process, byte for byte"
# A rank's lines reach the log through orted and mpirun, after the rank may have ended.
has_line() { # FILE PATTERN: FILE holds a line matching PATTERN within 10 s
    for _ in $(seq 200); do grep -q "$2" "$1" && return 0; sleep 0.05; done
    return 1
}
wait_journal() { # BOOK LOG: waits until BOOK's journal holds a few batches
    for _ in $(seq 600); do
        [ "$(stat -c %s "$1.journal" 2>/dev/null || echo 0)" -gt 3000 ] && return 0
        sleep 0.05
    done
    tail -5 "$2"
    fail "$1: no batch journaled"
}
cp "$T/start.book" "$T/i2.book"
SUB=book mpi "$T/hosts3" 3 expand "$T/i2.book" "${BOOKARGS[@]}" >"$T/i2.err" 2>&1 &
MPIRUN_PIDS+=($!)
wait_journal "$T/i2.book" "$T/i2.err"
ip link set "gkv${tag}2" down
t0=$(now)
for _ in $(seq 1200); do [ -z "$(rank_pids "${NS[0]}")" ] && break; sleep 0.05; done
[ -z "$(rank_pids "${NS[0]}")" ] || { tail -5 "$T/i2.err"; fail "(i): book rank 0 still runs 60 s after the cut"; }
t_end=$(secs "$t0" "$(now)")
has_line "$T/i2.err" 'rank 2 not heard from .* given up as lost' || { tail -5 "$T/i2.err"; fail "(i): no rank given up"; }
has_line "$T/i2.err" '^book expand: done: .*1 rank lost' || { tail -5 "$T/i2.err"; fail "(i): no 'done' line"; }
cmp -s "$T/i2.book" "$T/solo.book" || fail "(i) after the cut: not the book of a single process"
[ ! -e "$T/i2.book.journal" ] || fail "(i) after the cut: the journal is left"
echo "test_multihost_slow: (i) book, link of host 3 cut: the expansion ended complete $t_end s after" \
    "the cut, the book of a single process, without a rerun"
grep 'given up as lost' "$T/i2.err" | sed 's/^/    /' || true
reconnect
cp "$T/start.book" "$T/i3.book"
SUB=book mpi "$T/hosts3" 3 expand "$T/i3.book" "${BOOKARGS[@]}" >"$T/i3.err" 2>&1 &
MPIRUN_PIDS+=($!)
wait_journal "$T/i3.book" "$T/i3.err"
ip link set "gkv${tag}2" down
sleep 0.5
live=$(rank_pids "${NS[0]}") && live="$live $(rank_pids "${NS[1]}")"
kill -TERM $live
t0=$(now)
for _ in $(seq 400); do [ -z "$(rank_pids "${NS[0]}")$(rank_pids "${NS[1]}")" ] && break; sleep 0.05; done
[ -z "$(rank_pids "${NS[0]}")$(rank_pids "${NS[1]}")" ] ||
    { tail -5 "$T/i3.err"; fail "(i): the book ranks did not end 20 s after SIGTERM"; }
t_term=$(secs "$t0" "$(now)")
awk -v t="$t_term" 'BEGIN { exit !(t < 10) }' || fail "(i): SIGTERM took $t_term s"
has_line "$T/i3.err" '^book expand: stopped by a signal: .*run the same command to continue$' ||
    { tail -5 "$T/i3.err"; fail "(i): no one-line stop"; }
kept=$(sed -n 's/^book expand: stopped by a signal: [^:]*: \([0-9]*\) nodes.*/\1/p' "$T/i3.err")
echo "test_multihost_slow: (i) book, link of host 3 cut, SIGTERM to hosts 1-2: their ranks ended" \
    "$t_term s later with $kept nodes kept"
reconnect
t0=$(now)
SUB=book mpi "$T/hosts2" 2 expand "$T/i3.book" "${BOOKARGS[@]}" --quiet 2>"$T/i4.err" ||
    { cat "$T/i4.err"; fail "(i) book resume on 2 hosts"; }
cmp -s "$T/i3.book" "$T/solo.book" || fail "(i) resumed on 2 hosts: not the book of a single process"
echo "test_multihost_slow: (i) book resumed on hosts 1-2: the book of a single process in" \
    "$(secs "$t0" "$(now)") s"
# kill -9 of host 3's rank: mpirun ends the job; the same command on hosts 1-2 resumes
# from the book and its journal.
cp "$T/start.book" "$T/i5.book"
SUB=book mpi "$T/hosts3" 3 expand "$T/i5.book" "${BOOKARGS[@]}" >"$T/i5.err" 2>&1 &
MPIRUN_PIDS+=($!)
wait_journal "$T/i5.book" "$T/i5.err"
pid=$(rank_pids "${NS[2]}")
[ -n "$pid" ] || fail "(i): no book rank on host 3"
kill -KILL $pid
t0=$(now)
timeout 60 tail --pid="${MPIRUN_PIDS[-1]}" -f /dev/null || fail "(i): mpirun did not end after the kill"
t_kill=$(secs "$t0" "$(now)")
kept=$("$G" book stats "$T/i5.book" | sed -n 's/^nodes *//p')
t0=$(now)
SUB=book mpi "$T/hosts2" 2 expand "$T/i5.book" "${BOOKARGS[@]}" >"$T/i6.err" 2>&1 ||
    { cat "$T/i6.err"; fail "(i) book resume after kill -9"; }
replayed=$(sed -n 's/.*(\([0-9]*\) replayed from the journal).*/\1/p' "$T/i6.err")
cmp -s "$T/i5.book" "$T/solo.book" || fail "(i) after kill -9 and the resume: not the book of a single process"
echo "test_multihost_slow: (i) book, kill -9 of host 3's rank: mpirun ended $t_kill s later;" \
    "the book held $kept nodes, $replayed batches replayed from the journal; resumed on hosts 1-2" \
    "in $(secs "$t0" "$(now)") s: the book of a single process"

# ---- (j) the job script outside SLURM (its mpirun fallback) with host 3's link cut: the
# ranks end on hosts 1-2 with the run complete, mpirun does not (it waits for host 3's
# daemon), and the script ends it MPIRUN_GRACE seconds after the run is complete.
reconnect
MARGS="--hostfile $T/hosts3 --oversubscribe --mca plm_rsh_agent $T/agent --mca routed direct"
MARGS="$MARGS --mca btl tcp,self --mca btl_tcp_if_include $SUBNET --mca oob_tcp_if_include $SUBNET"
GOUNKI=$G OUT=$T/j GAMES=$N PLAYOUTS=120 SEED=11 RANKS=3 MPIRUN_GRACE=5 MPIRUN_ARGS=$MARGS \
    EXTRA="${frames[*]} --peer-timeout 5" bash "$SRC/scripts/slurm/selfplay.sbatch" >"$T/j.out" 2>&1 &
jpid=$!
MPIRUN_PIDS+=($jpid)
wait_games "$T/j" 20 "$T/j.out"
ip link set "gkv${tag}2" down
t0=$(now)
rc=0
timeout 120 tail --pid=$jpid -f /dev/null || { tail -5 "$T/j.out"; fail "(j): the job script still runs 120 s after the cut"; }
wait $jpid || rc=$?
[ $rc = 0 ] || { tail -8 "$T/j.out"; fail "(j): the job script exited $rc"; }
grep -q 'the run is complete, but mpirun has not ended 5 s later' "$T/j.out" ||
    { tail -8 "$T/j.out"; fail "(j): the script did not end mpirun"; }
grep -q 'run complete: 200 games' "$T/j.out" || { tail -5 "$T/j.out"; fail "(j): no 'run complete' line"; }
same "$T/j" "(j) the job script after the cut"
echo "test_multihost_slow: (j) the job script's mpirun fallback, link of host 3 cut: the script" \
    "ended $(secs "$t0" "$(now)") s after the cut (MPIRUN_GRACE=5), $N of $N games, exit 0"

# ---- (e, f) optional: kill -9 of every rank; SIGTERM to every rank
if [ -n "${GK_MULTIHOST_ALL:-}" ]; then
    reconnect
    for sig in KILL TERM; do
        rm -rf "$T/e"
        mpi "$T/hosts3" 3 "${ARGS[@]}" --out "$T/e" >"$T/e.err" 2>&1 &
        MPIRUN_PIDS+=($!)
        wait_games "$T/e" 20 "$T/e.err"
        before=$(games "$T/e")
        kill -$sig $(rank_pids "${NS[0]}") $(rank_pids "${NS[1]}") $(rank_pids "${NS[2]}")
        t0=$(now)
        for _ in $(seq 400); do
            [ -z "$(rank_pids "${NS[0]}")$(rank_pids "${NS[1]}")$(rank_pids "${NS[2]}")" ] && break
            sleep 0.05
        done
        t_ranks=$(secs "$t0" "$(now)")
        timeout 60 tail --pid="${MPIRUN_PIDS[-1]}" -f /dev/null || fail "(e): mpirun did not end"
        echo "test_multihost_slow: (e) SIG$sig to every rank at $before games on disk: the ranks" \
            "ended $t_ranks s later, mpirun $(secs "$t0" "$(now)") s; $(games "$T/e") of $N games kept"
        grep 'stopped by' "$T/e.err" | sed 's/^/    /' || true
        mpi "$T/hosts3" 3 "${ARGS[@]}" --quiet --out "$T/e" 2>"$T/e2.err" || { cat "$T/e2.err"; fail "(e) resume"; }
        same "$T/e" "(e) SIG$sig, resumed"
    done
fi
echo "test_multihost_slow: ok"
