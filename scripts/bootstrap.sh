#!/usr/bin/env bash
# Installs every Debian package encc uses (build, tests, benchmarks, fuzzing).
# Idempotent; meant for a fresh Debian 12 machine, run as root (or with sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache git pkg-config
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools libzstd-dev
  clang-19 libclang-rt-19-dev clang-format-19
  libboost-dev nlohmann-json3-dev libhwy-dev libutf8proc-dev libcpp-httplib-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libdnnl-dev libopenblas-dev libopenblas0-openmp
  python3 python3-numpy python3-torch python3-onnx
  python3-matplotlib python3-dask python3-distributed python3-sentencepiece
  wrk
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#packages[@]} packages present"
else
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "bootstrap: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Hugging Face tokenizers (its Node binding, from the npm registry, at the
# version of the lock file): the reference of test/tokenizer.
here="$(cd "$(dirname "$0")/.." && pwd)"
if [ ! -d "$here/test/tokenizer/node/node_modules/tokenizers" ]; then
  echo "bootstrap: npm ci in test/tokenizer/node"
  (cd "$here/test/tokenizer/node" && npm ci --no-audit --no-fund --loglevel=error)
fi
