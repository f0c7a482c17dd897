"""tokenize_dump (tokenize_dump.cc) through the Python package: enc.Tokenizer
encodes each case of a JSON-lines corpus and prints one JSON line per case,
offsets in code points as HF's Python binding gives them ("chars": true),
for compare.js to hold against Hugging Face `tokenizers`.

usage: py_tokenize_dump.py TOKENIZER CORPUS [MAX_LENGTH [STRATEGY]]
(PYTHONPATH naming python/, ENC_TOKENIZER_LIBRARY the shared library)
"""
import json
import sys

import enc

STRATEGIES = ["longest_first", "only_first", "only_second"]


def main():
    tok = enc.Tokenizer.from_file(sys.argv[1])
    if len(sys.argv) > 3:
        strategy = STRATEGIES[int(sys.argv[4])] if len(sys.argv) > 4 else "longest_first"
        tok.enable_truncation(int(sys.argv[3]), strategy)
    out = sys.stdout
    with open(sys.argv[2], encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            c = json.loads(line)
            try:
                e = tok.encode(c.get("text", ""), c.get("pair"),
                               add_special_tokens=c.get("special", True))
                r = {"ids": e.ids, "tokens": e.tokens, "type_ids": e.type_ids,
                     "mask": e.attention_mask,
                     "seq": [-1 if s is None else s for s in e.sequence_ids],
                     "offsets": [list(o) for o in e.offsets], "chars": True,
                     "decoded": tok.decode(e.ids, skip_special_tokens=True)}
            except enc.Error as err:
                r = {"error": str(err)}
            out.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
