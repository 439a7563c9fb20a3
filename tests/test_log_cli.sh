#!/usr/bin/env bash
# gounki log on sound and damaged logs: verify passes a sound run and fails (exit 1, the
# shard and the fault named) on a truncated shard, a flipped byte, a zero-filled tail, a
# duplicated game and garbage (also with --quick, which checks checksums and indices
# only); cat and stats never crash on any of them; every record of log cat replays; usage
# errors exit 2.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
expect() { # STATUS CMD...: runs CMD, wants exit STATUS, and never a signal
    local want=$1; shift
    set +e; "$@" >"$T/out" 2>&1; local rc=$?; set -e
    [ $rc -lt 128 ] || { cat "$T/out"; fail "'$*' died of signal $((rc - 128))"; }
    [ $rc = "$want" ] || { cat "$T/out"; fail "'$*' exited $rc, not $want"; }
}

"$G" selfplay --games 8 --playouts 30 --seed 11 --frame-games 2 --quiet --out "$T/run" 2>/dev/null
S="$T/run/shard-00000.gkz"
expect 0 "$G" log verify --complete "$T/run"
grep -q '4 frames, 8 games' "$T/out" || fail "verify summary: $(cat "$T/out")"
expect 0 "$G" log stats "$T/run"
grep -q 'results: White' "$T/out" && grep -q 'text records (log cat) + zstd' "$T/out" || fail "stats"
expect 0 "$G" log cat "$T/run" --stats
[ "$(grep -c '^\[Round ' "$T/out")" = 8 ] || fail "cat --stats does not print 8 games"
grep -q '^; .*: search visits 30 value' "$T/out" || fail "cat --stats has no statistics"
for i in 0 1 2 3 4 5 6 7; do
    "$G" log cat "$T/run" --game $i >"$T/g.txt"
    expect 0 "$G" replay --quiet "$T/g.txt"
done
expect 1 "$G" log cat "$T/run" --game 8
size=$(stat -c %s "$S")

damaged() { # NAME: copies the run to $T/NAME and echoes the shard path
    rm -rf "$T/$1"; cp -r "$T/run" "$T/$1"; echo "$T/$1/shard-00000.gkz"
}
check_bad() { # NAME WORD: verify exits 1 naming the shard and WORD; cat and stats survive
    expect 1 "$G" log verify "$T/$1"
    grep -q "shard-00000.gkz: $2" "$T/out" || grep -q "$2" "$T/out" || { cat "$T/out"; fail "$1: verify does not say '$2'"; }
    grep -q 'FAULTS FOUND' "$T/out" || fail "$1: no fault line"
    set +e
    "$G" log cat "$T/$1" >/dev/null 2>&1; rc1=$?
    "$G" log stats "$T/$1" >/dev/null 2>&1; rc2=$?
    set -e
    [ $rc1 -lt 128 ] && [ $rc2 -lt 128 ] || fail "$1: a reader crashed ($rc1, $rc2)"
}

f=$(damaged cut); truncate -s $((size - 10)) "$f"; check_bad cut torn
f=$(damaged cuthead); truncate -s $((size - (size / 4) * 3)) "$f"; check_bad cuthead torn
f=$(damaged zeros); head -c 777 /dev/zero >>"$f"; check_bad zeros torn
f=$(damaged flip); printf '\x55' | dd of="$f" bs=1 seek=$((size / 3)) conv=notrunc status=none
check_bad flip corrupt
f=$(damaged garbage); head -c 2000 /dev/urandom >"$f"; check_bad garbage corrupt
f=$(damaged dup); cp "$f" "$T/dup/shard-00001.gkz"; check_bad dup 'stored more than once'
f=$(damaged manifest); printf 'x' >>"$T/manifest/manifest.gkm"
expect 1 "$G" log verify "$T/manifest"; grep -q manifest "$T/out" || fail "bad manifest not named"

# A damaged shard blocks a resume unless --repair; a torn one does not.
f=$(damaged flip2); printf '\x55' | dd of="$f" bs=1 seek=100 conv=notrunc status=none
expect 1 "$G" selfplay --games 8 --playouts 30 --seed 11 --frame-games 2 --quiet --out "$T/flip2"
grep -q 'not a torn write' "$T/out" || fail "resume over a corrupt shard: $(cat "$T/out")"
expect 0 "$G" selfplay --games 8 --playouts 30 --seed 11 --frame-games 2 --quiet --repair --out "$T/flip2"
expect 0 "$G" log verify --complete "$T/flip2"
cmp -s <("$G" log cat "$T/flip2") <("$G" log cat "$T/run") || fail "repaired run differs"
expect 0 "$G" selfplay --games 8 --playouts 30 --seed 11 --frame-games 2 --quiet --out "$T/cut"
expect 0 "$G" log verify --complete "$T/cut"

# log export: records with each move's search as comments (they replay), JSON lines.
expect 0 "$G" log export "$T/run"
[ "$(grep -c '^\[Round ' "$T/out")" = 8 ] || fail "export does not write 8 records"
grep -q '{value [-+][0-9.]* visits [0-9]*}' "$T/out" || fail "export records lack the root value and visits"
"$G" log export "$T/run" --game 3 >"$T/g3.txt"
expect 0 "$G" replay --quiet "$T/g3.txt"
cmp -s <("$G" replay "$T/g3.txt") <("$G" log cat "$T/run" --game 3 | "$G" replay -) || fail "export and cat give other games"
expect 0 "$G" log export "$T/run" --format json --out "$T/games.jsonl"
grep -q 'wrote .*games.jsonl (8 games)' "$T/out" || fail "export --out: $(cat "$T/out")"
[ "$(wc -l <"$T/games.jsonl")" = 8 ] || fail "json: not one line per game"
python3 - "$T/games.jsonl" <<'PY' || fail "json lines do not parse or lack fields"
import json, sys
for line in open(sys.argv[1]):
    g = json.loads(line)
    assert g["result"] in ("1-0", "0-1", "1/2-1/2") and g["moves"] and g["turns"] == len(g["moves"])
    s = [a for a in g["actions"] if a["kind"] == "search"]
    assert s and all(-1 <= a["value"] <= 1 and a["visits"] >= 1 and a["top"] for a in s)
    assert sum(c["visits"] for c in s[0]["top"]) <= s[0]["visits"]
PY
expect 0 "$G" log export "$T/run" --format json --game 2
[ "$(wc -l <"$T/out")" = 1 ] && grep -q '"index":2,' "$T/out" || fail "json --game 2"
expect 1 "$G" log export "$T/run" --out "$T/no/such/dir/x.txt"
grep -q 'no/such/dir' "$T/out" || fail "export --out to a missing directory: $(cat "$T/out")"
expect 1 "$G" log export "$T/run" --game 99 --out "$T/g99.txt"
[ ! -e "$T/g99.txt" ] || fail "export of a missing game left a file"
ls "$T" | grep -q '\.tmp\.' && fail "export left a temporary file"
expect 2 "$G" log export "$T/run" --format yaml
expect 2 "$G" log cat "$T/run" --format json

# verify --quick: checksums and header indices only; the same verdict on damage that a
# checksum catches, and on completeness.
expect 0 "$G" log verify --quick --complete "$T/run"
grep -q '8 games, 8 distinct.*complete' "$T/out" || fail "quick: $(cat "$T/out")"
for d in cuthead zeros flip garbage dup; do expect 1 "$G" log verify --quick "$T/$d"; done
# Stopped once a frame is stored (a fixed 2 s stored none under ASan on a loaded machine).
"$G" selfplay --games 5000 --playouts 30 --frame-games 2 --quiet --out "$T/part" >/dev/null 2>&1 &
part=$!
for _ in $(seq 1200); do
    [ -n "$(find "$T/part" -name 'shard-*.gkz' -size +0c 2>/dev/null)" ] && break
    sleep 0.05
done
kill -TERM $part 2>/dev/null || true
wait $part 2>/dev/null || true
expect 0 "$G" log verify --quick "$T/part"
expect 1 "$G" log verify --quick --complete "$T/part"
grep -q 'incomplete' "$T/out" || fail "quick --complete: $(cat "$T/out")"
expect 2 "$G" log cat --quick "$T/run"

# Missing or odd paths, usage errors.
expect 1 "$G" log verify "$T/none"
expect 1 "$G" log cat /dev/null
# Nothing to verify is an error, not "ok": an empty file, an empty directory.
: >"$T/empty.gkz"; expect 1 "$G" log verify "$T/empty.gkz"
grep -q 'no games' "$T/out" || fail "empty shard: $(cat "$T/out")"
! grep -q 'verify: ok' "$T/out" || fail "empty shard said ok"
mkdir -p "$T/emptydir"; expect 1 "$G" log verify "$T/emptydir"
grep -q 'no game logs here (no shard-\*.gkz files)' "$T/out" || fail "empty dir: $(cat "$T/out")"
expect 1 "$G" log cat "$T/emptydir"
# A training run directory (gen-GGG/logs, docs/FORMATS.md): generation by generation.
mkdir -p "$T/train/gen-000" "$T/train/gen-001" "$T/train/gen-002"
cp -r "$T/run" "$T/train/gen-000/logs"; cp -r "$T/run" "$T/train/gen-001/logs"
expect 0 "$G" log verify "$T/train"
grep -q '^== generation 1: .*gen-001/logs' "$T/out" || fail "train run: $(cat "$T/out")"
grep -q '^== generation 2: no logs' "$T/out" || fail "train run: gen 2 not named"
grep -q '^verify: training run, 2 generations with logs, 16 games: ok' "$T/out" || fail "train run summary: $(tail -1 "$T/out")"
expect 1 "$G" log cat "$T/train"
grep -q 'a training run: its logs are in gen-GGG/logs' "$T/out" || fail "cat of a train run: $(cat "$T/out")"
f=$(damaged flip3); printf '\x55' | dd of="$f" bs=1 seek=$((size / 3)) conv=notrunc status=none
rm -rf "$T/train/gen-001/logs"; cp -r "$T/flip3" "$T/train/gen-001/logs"
expect 1 "$G" log verify "$T/train"
grep -q '^verify: training run, 2 generations with logs, .*FAULTS FOUND' "$T/out" || fail "train run fault: $(tail -1 "$T/out")"
expect 2 "$G" log
expect 2 "$G" log frobnicate "$T/run"
expect 2 "$G" log verify "$T/run" --game 3
expect 2 "$G" log cat "$T/run" --game x
expect 0 "$G" log --help
# Gobs adjudication (issue 14): the new reason round-trips through the log, its export
# and replay; Gounki refuses the flag; the fingerprint names it.
"$G" selfplay --game gobs --games 2 --run "$T/adj" --playouts 10 --adjudicate 10,2,1 --quiet
"$G" log verify "$T/adj" >/dev/null || fail "adjudicated log does not verify"
"$G" log stats "$T/adj" | grep -q "termination: adjudication 2" || fail "adjudication not counted"
"$G" log export "$T/adj" --game 0 >"$T/adj0.txt"
grep -q 'Termination "adjudication"' "$T/adj0.txt" || fail "no adjudication tag"
"$G" replay --quiet "$T/adj0.txt" | grep -q "by adjudication" || fail "replay refuses adjudication"
grep -q "adjudicate=10,2,1" "$T/adj/manifest.gkm" || fail "adjudication not in the settings"
expect 2 "$G" selfplay --games 1 --run "$T/adj-gk" --adjudicate 10,2,1
expect 2 "$G" selfplay --game gobs --games 1 --run "$T/adj-bad" --adjudicate 10,2
echo "test_log_cli: ok"
