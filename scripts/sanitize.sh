#!/usr/bin/env bash
# The sanitizer half of the hardening suite:
#  1. build-asan: everything built with clang-19 -fsanitize=address,undefined
#     (UBSan fatal, LeakSanitizer on), then the whole CTest suite there;
#  2. build-tsan: only the runtime built with -fsanitize=thread, and
#     concurrency.test run against it with build-asan's encc (encc is not
#     rebuilt under TSan: MLIR's threads live in Debian's uninstrumented
#     libMLIR, and the model object encc emits is the same either way).
# Installs the packages it needs first (scripts/bootstrap.sh). JOBS overrides
# the parallelism (default: one per core).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
jobs=${JOBS:-$(nproc)}

source scripts/sanitizer-env.sh

# The configurations are CMakePresets.json's asan and tsan presets.
echo "== ASan + UBSan: configure, build, whole suite (build-asan)"
cmake --preset asan
cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs"

echo "== TSan: the runtime (build-tsan), concurrency.test against it"
cmake --preset tsan
cmake --build --preset tsan -j "$jobs"
lit=$(sed -n 's/^ENC_LIT:FILEPATH=//p' build-asan/CMakeCache.txt)
/usr/bin/python3 "$lit" -sv build-asan/test --filter 'e2e/(concurrency|race-check)\.test' \
  -Denc_runtime_lib="$PWD/build-tsan/runtime/libenc_runtime.a" \
  -Dsanitize_flags="-fsanitize=thread -fno-omit-frame-pointer"
