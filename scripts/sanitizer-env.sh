# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: the sanitizer options
# of every program build-asan and build-tsan run, encc during the build
# (enc_add_model) included. A caller's own *SAN_OPTIONS win.
#
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
