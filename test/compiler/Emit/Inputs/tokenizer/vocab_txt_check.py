#!/usr/bin/env python3
"""A vocab.txt compiled in (docs/tokenizers.md#compiled-in) tokenizes as the
same file opened from its path, which reads tokenizer_config.json beside it
and which tokenizer.test holds against Hugging Face `tokenizers`:

- NAME_tokenizer_file gives the compiled image and a name carrying its
  do_lower_case ("vocab.cased.txt" for a cased vocabulary);
- NAME_tokenize (the object's own copy) gives the ids enc.Tokenizer.from_file
  gives with truncation to max_len, on every text of the corpus;
- the check can fail: the cased vocabulary opened lowercased differs.

usage: vocab_txt_check.py LIBRARY INPUTS_DIR CORPUS  (PYTHONPATH naming
python/, ENC_TOKENIZER_LIBRARY the tokenizer's shared library)
"""
import ctypes
import json
import os
import sys

import enc

failures = []


def check(ok, what):
    print("%-4s %s" % ("ok" if ok else "FAIL", what), flush=True)
    if not ok:
        failures.append(what)


def compiled_ids(lib, encoder, texts):
    """NAME_tokenize on each text alone: the ids of its valid positions."""
    fn = getattr(lib, encoder + "_tokenize")
    fn.restype = ctypes.c_int
    out = []
    for t in texts:
        raw = t.encode("utf-8")
        texts_c = (ctypes.c_char_p * 1)(raw)
        sizes = (ctypes.c_size_t * 1)(len(raw))
        cap = 1024
        tokens = (ctypes.c_int32 * cap)()
        types = (ctypes.c_int32 * cap)()
        lengths = (ctypes.c_int32 * 1)()
        seq = ctypes.c_int32()
        status = fn(1, texts_c, sizes, ctypes.c_int64(cap), tokens, types, lengths,
                    ctypes.byref(seq))
        if status != 0:
            return None
        out.append(list(tokens[:lengths[0]]))
    return out


def main():
    lib = ctypes.CDLL(sys.argv[1])
    inputs = sys.argv[2]
    texts = [json.loads(line)["text"] for line in open(sys.argv[3], encoding="utf-8")]
    for encoder, folder, name in (("cased", "bert-base-cased", "vocab.cased.txt"),
                                  ("uncased", "bert-base-uncased-vocab", "vocab.txt")):
        path = os.path.join(inputs, folder, "vocab.txt")
        data, size, got = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_char_p()
        getattr(lib, encoder + "_tokenizer_file")(ctypes.byref(data), ctypes.byref(size),
                                                  ctypes.byref(got))
        image = ctypes.string_at(data, size.value)
        check(got.value.decode() == name and image.startswith(b"ENCTOK"),
              "%s: compiled in as %r, a %d-byte image" % (encoder, got.value.decode(),
                                                          size.value))
        # The compiled-in copy truncates to max_len (512) as the file sets none.
        tok = enc.Tokenizer.from_file(path)
        tok.enable_truncation(512)
        want = [e.ids for e in tok.encode_batch(texts)]
        ours = compiled_ids(lib, encoder, texts)
        same = ours is not None and sum(a == b for a, b in zip(ours, want))
        check(ours == want, "%s: %s of %d texts as from_file" % (encoder, same, len(texts)))
    # The cased vocabulary lowercased is another tokenizer: the comparison sees it.
    cased = open(os.path.join(inputs, "bert-base-cased", "vocab.txt"), "rb").read()
    lowered = enc.Tokenizer.from_bytes(cased, "vocab.txt").encode("Hello World").ids
    kept = enc.Tokenizer.from_bytes(cased, "vocab.cased.txt").encode("Hello World").ids
    check(lowered != kept and kept == compiled_ids(lib, "cased", ["Hello World"])[0],
          "cased vocabulary: %s kept, %s lowercased" % (kept, lowered))
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
