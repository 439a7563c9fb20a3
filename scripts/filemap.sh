#!/usr/bin/env bash
# Prints the file map of docs/HACKING.md: every tracked source file with the job its
# first comment states ("path -- job").  Run it after adding a file:
#   scripts/filemap.sh > /tmp/map && edit docs/HACKING.md (section "File map").
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files '*.c' '*.h' '*.sh' 'CMakeLists.txt' '*/CMakeLists.txt' '.ci/run' '*.sbatch' | sort |
while read -r f; do
  job=$(grep -m1 -E -- "$f +-- " "$f" 2>/dev/null | sed -E "s|.*$f +-- *||; s|\*/ *$||; s| *$||" || true)
  [ -n "$job" ] || job=$(sed -n '2,4p' "$f" | grep -m1 -E '^#' | sed -E 's/^# ?//' || true)
  printf '| `%s` | %s |\n' "$f" "${job:-}"
done
