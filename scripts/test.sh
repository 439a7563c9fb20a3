#!/usr/bin/env bash
# The whole test suite, as CI runs it on a fresh Debian 12 machine:
# dependencies, formatting, a -Werror release build with every test and the bench signature
# checked against the commit log, an ASan+UBSan build with every test but the slow ones,
# and a ThreadSanitizer run of the threaded tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
j=$(nproc)

bash scripts/deps.sh

echo "== format check (clang-format)"
git ls-files '*.c' '*.h' | xargs clang-format --dry-run --Werror

echo "== release build, all tests"
bash scripts/build.sh release "$root/build-ci" >/dev/null
(cd build-ci && ctest -j"$j" --output-on-failure --timeout 900)

echo "== bench signature against the commit log (scripts/signature.sh)"
bash scripts/signature.sh "$root/build-ci"

echo "== ASan+UBSan build, all tests but the slow ones"
bash scripts/build.sh asan "$root/build-ci-asan" >/dev/null
(cd build-ci-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest -j"$j" -LE slow --output-on-failure --timeout 900)

echo "== ThreadSanitizer build, threaded tests"
bash scripts/build.sh tsan "$root/build-ci-tsan" >/dev/null
(cd build-ci-tsan && OMP_TOOL_LIBRARIES=/usr/lib/llvm-14/lib/libarcher.so \
   TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ignore_noninstrumented_modules=1" ctest -j"$j" -L tsan --output-on-failure --timeout 900)
echo "== all test stages passed"
