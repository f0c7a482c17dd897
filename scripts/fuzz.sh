#!/usr/bin/env bash
# Builds the libFuzzer targets (test/fuzz) in build-asan (ASan + UBSan, the
# configuration the sanitizer CI shares) and fuzzes each for FUZZ_SECONDS
# (default 60) on a copy of its committed seed corpus. Prints each target's
# executions per second, total executions and coverage; exits non-zero if any
# target found a crash, leak, timeout or OOM (its input is then kept in
# $FUZZ_WORK/<target>/artifacts).
#   FUZZ_SECONDS  seconds per target (default 60)
#   FUZZ_TARGETS  the targets to run (default: all of them)
#   FUZZ_WORK     working corpora, logs and artifacts (default build-asan/fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
build_dir=build-asan
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-fuzz_enc_frontend fuzz_safetensors fuzz_packed fuzz_runtime_input fuzz_tokenizer_text fuzz_tokenizer_file}
work=${FUZZ_WORK:-$build_dir/fuzz}

# The asan preset of CMakePresets.json (binary dir build-asan).
cmake --preset asan
# The build runs encc under ASan (the fuzz_toy model): sanitize.sh's options.
# shellcheck disable=SC2086
(source scripts/sanitizer-env.sh
 cmake --build --preset asan -j "$(nproc)" --target $targets)

max_len() {
  case $1 in
    fuzz_safetensors) echo 16384 ;;  # the valid seeds are ~6 KiB
    fuzz_tokenizer_file) echo 8192 ;;  # a byte-fallback .model is ~5 KiB
    *) echo 4096 ;;
  esac
}

status=0
summary=""
for t in $targets; do
  dir=$work/$t
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  # A copy: new inputs go to the work corpus, never to the committed one.
  cp test/fuzz/corpus/"$t"/* "$dir/corpus/"
  dict=()
  [ -f "test/fuzz/$t.dict" ] && dict=(-dict="test/fuzz/$t.dict")
  echo "== $t: ${seconds}s"
  rc=0
  nice -n 10 "$build_dir/bin/$t" "$dir/corpus" "${dict[@]}" \
    -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$dir/artifacts/" >"$dir/log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$dir/log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p' <<<"$last")
  found=$(ls -A "$dir/artifacts")
  result=ok
  if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
    result="FAILED (exit $rc): $(grep -m1 -E 'ERROR: |SUMMARY: ' "$dir/log" || true) ${found}"
    status=1
    tail -40 "$dir/log"
  fi
  summary+=$(printf '%-20s %10s exec/s %12s execs  cov %6s  ft %7s  corpus %-12s %s' \
    "$t" "${rate:-?}" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result")$'\n'
done
echo "== fuzz summary (${seconds}s each; logs in $work)"
printf '%s' "$summary"
exit $status
