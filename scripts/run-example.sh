#!/usr/bin/env bash
# The main job, on a fresh Debian 12 machine (it installs the packages it
# needs): builds encc and the runtime, compiles the seed article's toy encoder
# (examples/seed_toy/seed_toy.enc) into an object through enc_add_model, writes
# its weights from the article's numpy example and runs it on five tokens.
#
# usage: scripts/run-example.sh              the seed toy, end to end
#        scripts/run-example.sh FILE.enc [encc options...]
#                                            compile another file with encc
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
if [ $# -gt 0 ]; then
  cmake --build "$build_dir" -j "$(nproc)" --target encc
  echo "== encc $*" >&2
  exec "$build_dir/bin/encc" "$@"
fi
cmake --build "$build_dir" -j "$(nproc)" --target seed_toy_demo
work="$build_dir/seed_toy_run"
mkdir -p "$work"
/usr/bin/python3 examples/seed_toy/make_weights.py "$work/weights.safetensors" "$work/tokens.bin"
"$build_dir/bin/seed_toy_demo" "$work/weights.safetensors" "$work/tokens.bin"
