#!/usr/bin/env bash
# Builds encc and runs every test (lit, GoogleTest) on a fresh Debian 12
# machine: installs the packages it needs first. BUILD_DIR overrides ./build.
# Warnings are errors here (ENC_WERROR), as in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
build_dir=${BUILD_DIR:-build}
jobs=$(nproc)
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DENC_WERROR=ON
cmake --build "$build_dir" -j "$jobs"
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"
