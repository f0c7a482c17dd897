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

# halt_on_error: an ASan report ends the process; UBSan is already fatal
# (-fno-sanitize-recover=all). detect_leaks is LSan's default on Linux x86-64,
# spelled out because concurrency.test relies on it (leak-check.test checks).
# allow_user_poisoning=0: LLVM's headers poison a BumpPtrAllocator slab when
# the code that starts it is built with ASan (ours: an attribute's storage),
# and Debian's uninstrumented libMLIR then allocates from that slab without
# unpoisoning it, which ASan would report as use-after-poison. Only these
# manual annotations are ignored; heap, stack and global checks stay on.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

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
