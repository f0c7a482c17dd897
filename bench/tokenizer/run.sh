#!/usr/bin/env bash
# encc's tokenizers against Hugging Face tokenizers, one thread each, on the
# same ~10 MB of mixed text (make_text.py), interleaved ROUNDS times; prints
# each run and the median throughput ratio per tokenizer file.
#
#   bench/tokenizer/run.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
build="${1:-$root/build}"
rounds="${2:-3}"
text="$build/bench-tokenizer/text.txt"
mkdir -p "$(dirname "$text")"
[ -f "$text" ] || /usr/bin/python3 "$here/make_text.py" "$text" 10
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); one thread each"
for name in ${NAMES:-bert-base-uncased all-MiniLM-L6-v2 roberta-base t5-small}; do
  tok="$root/test/tokenizer/Inputs/$name/tokenizer.json"
  ratios=()
  for r in $(seq "$rounds"); do
    ours=$("$build/bin/tokenize_bench" "$tok" "$text" 3)
    theirs=$(RAYON_NUM_THREADS=1 node "$here/hf_tokenize.js" "$tok" "$text" 3)
    echo "$name: $ours"
    echo "$name: $theirs"
    a=$(sed -E 's/.* ([0-9.]+) MB\/s.*/\1/' <<<"$ours")
    b=$(sed -E 's/.* ([0-9.]+) MB\/s.*/\1/' <<<"$theirs")
    ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')")
  done
  median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  echo "$name: encc / HF throughput: ${ratios[*]} (median $median)"
done
