#!/usr/bin/env bash
# End-to-end benchmark: encc vs ONNX Runtime (onnxruntime-node) vs PyTorch
# (nn.TransformerEncoder), same weights, interleaved runs. See bench/README.md.
#   bench/run_e2e.sh [--no-build] [--quick] [e2e.py options...]
#   bench/run_e2e.sh [--no-build] --precision int8|bf16 [e2e.py options...]
#     encc in that precision vs ONNX Runtime int8 and fp32 (and encc fp32),
#     with the accuracy of each against the float64 reference.
# --no-build: use build/bin/encc and libenc_runtime.a as they are (for example
# while someone else's half-edited tree does not compile).
# Environment: BUILD (default <repo>/build, configured), JOBS (default 2).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
BUILD="${BUILD:-$ROOT/build}"
JOBS="${JOBS:-2}"
PY=/usr/bin/python3   # Debian's: torch and numpy (a pyenv python on PATH has neither)

BUILD_TARGETS=1
if [ "${1:-}" = "--no-build" ]; then BUILD_TARGETS=0; shift; fi

[ -f "$BUILD/CMakeCache.txt" ] || { echo "run_e2e.sh: $BUILD is not a configured build dir" >&2; exit 1; }
if [ "$BUILD_TARGETS" = 1 ]; then
  echo "run_e2e.sh: building encc and the runtime in $BUILD" >&2
  cmake --build "$BUILD" -j"$JOBS" --target encc enc_runtime >&2
  # The FMA peak comes from build/bin/fma_peak when the bench targets are
  # configured (ENC_BUILD_BENCH=ON); otherwise e2e.py measures its own.
  if cmake --build "$BUILD" --target help 2>/dev/null | grep -q '^fma_peak:'; then
    cmake --build "$BUILD" -j"$JOBS" --target fma_peak >&2
  fi
fi
for f in "$BUILD/bin/encc" "$BUILD/runtime/libenc_runtime.a"; do
  [ -e "$f" ] || { echo "run_e2e.sh: $f is missing (build it, or drop --no-build)" >&2; exit 1; }
done

# onnxruntime-node: its install script tries to fetch GPU files and fails
# offline; the CPU runtime ships inside the package.
if [ ! -d "$HERE/node/node_modules/onnxruntime-node" ]; then
  echo "run_e2e.sh: npm ci in bench/node" >&2
  (cd "$HERE/node" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund >&2)
fi

# The torch side needs the OpenMP build of OpenBLAS (its pthread build
# ignores torch.set_num_threads); scripts/bootstrap.sh installs it.
if [ ! -e /usr/lib/x86_64-linux-gnu/openblas-openmp/libblas.so.3 ]; then
  echo "run_e2e.sh: libopenblas0-openmp is missing (scripts/bootstrap.sh installs it)" >&2
  exit 1
fi

# --precision: ONNX Runtime's int8 graph is written with python3-onnx
# (bench/ort_int8.py), and the built encc must take the setting (e2e.py
# checks that before anything runs and names what is missing).
for a in "$@"; do
  case "$a" in
    --precision|--precision=*)
      "$PY" -c "import onnx" 2>/dev/null || {
        echo "run_e2e.sh: --precision needs python3-onnx (scripts/bootstrap.sh installs it)" >&2
        exit 1; } ;;
  esac
done

exec "$PY" "$HERE/e2e.py" --build "$BUILD" "$@"
