#!/bin/sh
# Runs gemm_bench (enc_gemm vs oneDNN vs OpenBLAS, 1 and 2 threads) and keeps
# its summary table: GFLOP/s, ratios ours/oneDNN and ours/OpenBLAS, and the
# fraction of the FMA peak (measured in the same run) of the instruction set
# each library ran. On a CPU with AVX-512 it runs twice: natively, then with
# encc capped at AVX2 (ENC_TARGET=avx2) beside oneDNN capped the same way
# (ONEDNN_MAX_CPU_ISA=AVX2) and OpenBLAS's Haswell kernels, so that the AVX2
# kernels are measured on this machine too.
#
#   bench/gemm_report.sh [build-dir] [extra gemm_bench flags...]
#   ISAS="native avx2" (default on AVX-512 CPUs) chooses the runs.
# Each library and shape runs 5 times, the runs of all of them in a random
# order (so that drift of the machine hits every library alike); the summary
# keeps the median. REPS overrides the 5.
#
# The machine should be quiet: the numbers are wall-clock throughput, and the
# peers (OpenMP, OpenBLAS threads) suffer from preemption more than ours.
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
bench="$build/bin/gemm_bench"
[ -x "$bench" ] || bench="$build/bench/gemm_bench"
if [ ! -x "$bench" ]; then
  echo "gemm_report: no gemm_bench in $build (cmake --build $build --target gemm_bench)" >&2
  exit 1
fi
if [ -z "${ISAS:-}" ]; then
  ISAS=native
  grep -qw avx512f /proc/cpuinfo && ISAS="native avx2"
fi
flags="--benchmark_color=false --benchmark_repetitions=${REPS:-5} --benchmark_enable_random_interleaving=true"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for isa in $ISAS; do
  echo "== $isa"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ "$isa" = native ]; then
    env -u ENC_TARGET -u ONEDNN_MAX_CPU_ISA -u OPENBLAS_CORETYPE \
      "$bench" $flags "$@" > "$out" 2>&1
  else
    ENC_TARGET=avx2 ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell \
      "$bench" $flags "$@" > "$out" 2>&1
  fi
  echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
  sed -n '/^encc: Highway target/,$p' "$out"
done
