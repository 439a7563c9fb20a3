#!/usr/bin/env bash
# Self-play under mpirun: the same games come out of 1, 2 and 4 ranks and of 2 threads
# and of leases that run out (games played twice, one copy kept)
# (compared as `gounki log cat` text), every run verifies complete, a rerun of a finished
# run plays nothing, a run can be extended, and changed settings are refused; the SLURM
# job script runs outside SLURM (mpirun, as root too) to the same games.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
MPI=(mpirun --allow-run-as-root --oversubscribe)
ARGS=(--games 10 --playouts 40 --seed 7 --frame-games 3 --quiet)

"$G" selfplay "${ARGS[@]}" --out "$T/solo" 2>"$T/solo.err" || fail "single process: $(cat "$T/solo.err")"
"${MPI[@]}" -np 1 "$G" selfplay "${ARGS[@]}" --out "$T/np1" 2>"$T/err" || fail "np 1: $(cat "$T/err")"
"${MPI[@]}" -np 2 "$G" selfplay "${ARGS[@]}" --out "$T/np2" 2>"$T/err" || fail "np 2: $(cat "$T/err")"
"${MPI[@]}" -np 4 "$G" selfplay "${ARGS[@]}" --out "$T/np4" 2>"$T/err" || fail "np 4: $(cat "$T/err")"
"${MPI[@]}" -np 2 "$G" selfplay "${ARGS[@]}" --threads 2 --out "$T/np2t2" 2>"$T/err" ||
    fail "np 2 x 2 threads: $(cat "$T/err")"
[ "$(ls "$T"/np4/shard-*.gkz | wc -l)" = 4 ] || fail "np 4 did not write 4 shards"

"$G" log cat "$T/solo" >"$T/solo.txt"
[ "$(grep -c '^\[Round ' "$T/solo.txt")" = 10 ] || fail "log cat does not print 10 games"
for d in np1 np2 np4 np2t2; do
    "$G" log verify --complete "$T/$d" >"$T/v.txt" || { cat "$T/v.txt"; fail "$d does not verify"; }
    "$G" log cat "$T/$d" >"$T/$d.txt"
    cmp -s "$T/solo.txt" "$T/$d.txt" || { diff "$T/solo.txt" "$T/$d.txt" | head; fail "$d differs"; }
done

# Leases that run out at once (--lease-timeout 0.001): games are leased again and played
# twice, the first report is kept and the later dropped: still the games of one process,
# each once.
"${MPI[@]}" -np 3 "$G" selfplay "${ARGS[@]}" --threads 2 --lease-timeout 0.001 --out "$T/relet" \
    2>"$T/err" || fail "lease timeout: $(cat "$T/err")"
again=$(sed -n 's/.*lost; \([0-9]*\) leases* ran out.*/\1/p' "$T/err")
[ "${again:-0}" -gt 0 ] || fail "lease timeout: no game was leased again: $(cat "$T/err")"
"$G" log verify --complete "$T/relet" >"$T/v.txt" || { cat "$T/v.txt"; fail "lease timeout: does not verify"; }
"$G" log cat "$T/relet" | cmp -s - "$T/solo.txt" || fail "lease timeout: other games"

# Every game's record replays by the rules, with the result it claims.
for i in 0 3 9; do
    "$G" log cat "$T/np4" --game $i >"$T/g$i.txt"
    "$G" replay --quiet "$T/g$i.txt" >"$T/r.txt" || fail "replay of game $i: $(cat "$T/r.txt")"
done

# A finished run: a rerun plays nothing and changes nothing.
"${MPI[@]}" -np 2 "$G" selfplay "${ARGS[@]}" --out "$T/np2" 2>"$T/err" || fail "rerun: $(cat "$T/err")"
"$G" log cat "$T/np2" | cmp -s - "$T/solo.txt" || fail "a rerun changed the games"
[ "$("$G" log verify "$T/np2" | grep -c 'duplicates')" = 1 ] || fail "verify summary"

# Extending the run plays the new games only; the first ten are unchanged.
"${MPI[@]}" -np 2 "$G" selfplay --games 13 --playouts 40 --seed 7 --frame-games 3 --quiet \
    --out "$T/np2" 2>"$T/err" || fail "extend: $(cat "$T/err")"
"$G" log verify --complete "$T/np2" | grep -q '13 distinct' || fail "extended run is not 13 games"
"$G" log cat "$T/np2" >"$T/ext.txt"
head -n "$(wc -l <"$T/solo.txt")" "$T/ext.txt" | cmp -s - "$T/solo.txt" ||
    fail "extending changed the first games"
"$G" selfplay --games 13 --playouts 40 --seed 7 --frame-games 3 --quiet --out "$T/solo" 2>/dev/null
"$G" log cat "$T/solo" | cmp -s - <("$G" log cat "$T/np2") || fail "extended runs differ"

# Changed settings and a shrinking run are refused, with the setting named.
set +e
"$G" selfplay --games 13 --playouts 41 --seed 7 --quiet --out "$T/np2" 2>"$T/err"; rc=$?
set -e
[ $rc = 1 ] && grep -q 'playouts=41 (the run has playouts=40)' "$T/err" || fail "changed playouts: rc $rc $(cat "$T/err")"
set +e
"$G" selfplay --games 5 --playouts 40 --seed 7 --quiet --out "$T/np2" 2>"$T/err"; rc=$?
set -e
[ $rc = 1 ] && grep -q 'shrinking is not' "$T/err" || fail "shrinking: rc $rc $(cat "$T/err")"
set +e
"${MPI[@]}" -np 2 "$G" selfplay --games 13 --playouts 40 --seed 8 --quiet --out "$T/np2" 2>"$T/err"; rc=$?
set -e
[ $rc != 0 ] && [ "$(grep -c 'other settings: seed=8' "$T/err")" = 1 ] || fail "changed seed under mpirun: rc $rc $(cat "$T/err")"

# Usage errors exit 2.
for bad in "--games 0 --out $T/x" "--games 5" "--games 5 --out $T/x --playouts 10 --time 1" \
           "--games 5 --out $T/x --openings bogus:3" "--games 5 --out $T/x --temperature x" \
           "--games 5 --out $T/x --resign 2" "--games 5 --out $T/x --mcts nope=1"; do
    set +e
    # shellcheck disable=SC2086
    "$G" selfplay $bad >/dev/null 2>&1; rc=$?
    set -e
    [ $rc = 2 ] || fail "'selfplay $bad' exited $rc, not 2"
done
# The SLURM job script outside SLURM falls back to mpirun, as root too (no OMPI_ALLOW_*
# in its environment: the script adds --allow-run-as-root), and ends with the run's games.
env -u SLURM_JOB_ID -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM GOUNKI="$G" \
    OUT="$T/sbatch" GAMES=10 PLAYOUTS=40 SEED=7 RANKS=1 EXTRA="--frame-games 3 --quiet" \
    bash "$SRC/scripts/slurm/selfplay.sbatch" >"$T/sbatch.out" 2>&1 ||
    { cat "$T/sbatch.out"; fail "selfplay.sbatch outside SLURM"; }
grep -q 'run complete: 10 games' "$T/sbatch.out" || fail "selfplay.sbatch: $(cat "$T/sbatch.out")"
"$G" log cat "$T/sbatch" | cmp -s - "$T/solo.txt" || fail "selfplay.sbatch: games differ"
echo "test_selfplay_mpi: ok"
