"""Holds encc's tokenizer on a SentencePiece .model file against Debian's
python3-sentencepiece, case by case over a JSON-lines corpus:

  compare_spm.py TOKENIZE_DUMP MODEL CORPUS.jsonl

tokenize_dump prints one line per case; its ids must be SentencePiece's
encode() and its decoded text decode() of them. Offsets are not compared:
they follow Hugging Face's convention, not SentencePiece's (a lone dummy
prefix, byte pieces; docs/tokenizers.md). Cases with a pair or with
"special": false are skipped: a .model file has no template. Prints
"N cases: M equal" and the first differences; exits 1 unless all are.
SPM_MODEL names another reference model (to see a difference found)."""
import json
import os
import subprocess
import sys

import sentencepiece as spm


def main():
    dump, model, corpus = sys.argv[1:4]
    # SPM_MODEL: another reference model, to see that a difference is found.
    sp = spm.SentencePieceProcessor(
        model_file=os.environ.get("SPM_MODEL", model))
    cases = [json.loads(line) for line in open(corpus, encoding="utf-8")]
    cases = [c for c in cases if "pair" not in c and c.get("special", True)]
    lines = "".join(json.dumps(c) + "\n" for c in cases)
    out = subprocess.run([dump, model, "/dev/stdin"], input=lines.encode(),
                         capture_output=True, check=True).stdout.decode()
    ours = [json.loads(line) for line in out.split("\n") if line]
    assert len(ours) == len(cases), (len(ours), len(cases))
    equal, shown = 0, 0
    for case, got in zip(cases, ours):
        text = case["text"]
        want = {"ids": sp.encode(text)}
        want["decoded"] = sp.decode(want["ids"])
        diff = [k for k in want if got.get(k) != want[k]]
        if not diff:
            equal += 1
        elif shown < 5:
            shown += 1
            print("differs in", diff, "on", json.dumps(text)[:80])
            for k in diff:
                print("  encc:", json.dumps(got.get(k))[:200])
                print("  spm: ", json.dumps(want[k])[:200])
    print(f"{len(cases)} cases: {equal} equal")
    return 0 if equal == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
