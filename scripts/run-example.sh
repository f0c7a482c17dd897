#!/usr/bin/env bash
# The main job: builds encc on a fresh Debian 12 machine (installing the
# packages it needs) and checks an example, printing its resolved settings.
# usage: scripts/run-example.sh [FILE.enc] [encc options...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target encc
input=${1:-examples/bert_base/bert_base.enc}
shift || true
echo "== encc $input $*" >&2
"$build_dir/bin/encc" "$input" "$@"
