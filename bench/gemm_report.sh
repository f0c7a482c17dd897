#!/bin/sh
# Runs gemm_bench (enc_gemm vs oneDNN vs OpenBLAS, 1 and 2 threads) and keeps
# its summary table: GFLOP/s, ratios ours/oneDNN and ours/OpenBLAS, and the
# fraction of the FMA peak measured in the same run.
#
#   bench/gemm_report.sh [build-dir] [extra gemm_bench flags...]
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
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bench" --benchmark_color=false "$@" > "$out" 2>&1
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
sed -n '/^FMA peak/,$p' "$out"
