"""encc's tokenizer on a SentencePiece .model against python3-sentencepiece
itself, one thread each, on the lines of the same text (make_text.py):

  spm_bench.py TOKENIZE_BENCH TEXT WORKDIR [ROUNDS]

A unigram model of up to 8,000 pieces (as many as the text supports) is
trained on the first 20,000 lines of the
text (SentencePiece's defaults: nmt_nfkc, dummy prefix), cached in WORKDIR.
Each round runs tokenize_bench (the median of 3 passes) and then
SentencePiece's batch encode (num_threads=1, the median of 3 passes); the
token counts must agree. Prints each run and the median ratio."""
import io
import os
import statistics
import subprocess
import sys
import time

import sentencepiece as spm


def main():
    bench, text, work = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    os.makedirs(work, exist_ok=True)
    model = os.path.join(work, "bench_unigram.model")
    with open(text, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]
    if not os.path.exists(model):
        blob = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(lines[:20000]), model_writer=blob,
            vocab_size=8000, hard_vocab_limit=False, minloglevel=2,
            num_threads=2)
        with open(model, "wb") as f:
            f.write(blob.getvalue())
    sp = spm.SentencePieceProcessor(model_file=model)
    megabytes = sum(len(line.encode("utf-8")) for line in lines) / 1e6
    ratios = []
    for r in range(rounds):
        ours = subprocess.run([bench, model, text, "3"], capture_output=True,
                              text=True, check=True).stdout.strip()
        ours_mbs = float(ours.split(" MB/s")[0].split()[-1])
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            ids = sp.encode(lines, num_threads=1)
            times.append(time.perf_counter() - t0)
        theirs_mbs = megabytes / statistics.median(times)
        tokens = sum(len(x) for x in ids)
        print("encc:          %s" % ours)
        print("sentencepiece: %.2f MB/s, %d tokens" % (theirs_mbs, tokens))
        ratios.append(ours_mbs / theirs_mbs)
    print("median ratio encc / sentencepiece: %.2fx (rounds: %s)"
          % (statistics.median(ratios), ", ".join("%.2f" % x for x in ratios)))


if __name__ == "__main__":
    main()
