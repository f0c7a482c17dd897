"""Trains small SentencePiece models with Debian's python3-sentencepiece, on
the texts of the tokenizer corpus, for the .model comparisons:

  make_spm.py CORPUS.jsonl OUTDIR

writes unigram.model (nmt_nfkc, SentencePiece's defaults), byte_fallback.model,
identity.model (no normalization rule, no dummy prefix, spaces kept),
user_defined.model (user-defined and control symbols) and bpe.model (a BPE
model, which the runtime refuses)."""
import io
import json
import os
import sys

import sentencepiece as spm


def main():
    corpus, out = sys.argv[1:3]
    os.makedirs(out, exist_ok=True)
    texts = [json.loads(line)["text"] for line in open(corpus, encoding="utf-8")]
    lines = [t.replace("\n", " ") for t in texts if t.strip()]
    common = dict(vocab_size=400, hard_vocab_limit=False,
                  character_coverage=0.98, minloglevel=2, num_threads=1)
    models = {
        "unigram": {},
        "byte_fallback": {"byte_fallback": True},
        "identity": {"normalization_rule_name": "identity",
                     "add_dummy_prefix": False,
                     "remove_extra_whitespaces": False},
        "user_defined": {"user_defined_symbols": ["<mask>", "http"],
                         "control_symbols": ["<cls>", "<sep>"]},
        "bpe": {"model_type": "bpe"},
    }
    for name, extra in models.items():
        blob = io.BytesIO()
        spm.SentencePieceTrainer.train(sentence_iterator=iter(lines * 3),
                                       model_writer=blob, **common, **extra)
        with open(os.path.join(out, name + ".model"), "wb") as f:
            f.write(blob.getvalue())


if __name__ == "__main__":
    main()
