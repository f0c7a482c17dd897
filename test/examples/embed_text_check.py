"""examples/embed_text: lines of text in, embeddings out through the
tokenizer compiled into the model (all_minilm_l6_v2_embed_text), checked
against each text's own forward call; and the compiled-in tokenizer's ids
(all_minilm_l6_v2_tokenize, the example's --ids) against enc.Tokenizer's.

Random all-MiniLM-L6-v2-shaped weights; the example's .enc compiles in
all-MiniLM-L6-v2's tokenizer.json; 70 lines (mixed scripts, an empty line,
one of 600 words, which the file's truncation cuts to 128 tokens), run in
batches sorted by length. Each printed embedding must equal, within 1e-5,
the forward of that text alone through the Python package on the same
weights (the .enc without its tokenizer line, ids from enc.Tokenizer on the
same file); the rows are unit vectors (the model normalizes).

usage: embed_text_check.py DEMO ENC_FILE TOKENIZER WORKDIR (environment as
in test/e2e/encc_case.py, PYTHONPATH naming python/, ENC_TOKENIZER_LIBRARY)
"""
import os
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import encc_case as ec  # noqa: E402

import enc  # noqa: E402

NAME = "all_minilm_l6_v2"


def raises_input_error(what, call, says):
    """Whether call() raises enc.Error("input") whose message has `says`."""
    try:
        call()
        ok, message = False, "no error"
    except enc.Error as e:
        ok, message = e.status == "input" and says in str(e), str(e)
    print("%-4s %s is an enc.Error naming it (%s)" % ("ok" if ok else "FAIL", what, message))
    return ok


def main():
    demo, enc_path, tokenizer, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    spec = ec.spec_of(enc_path, NAME)
    ec.reference.make_case(spec, 5, 1, 4, outdir=os.path.join(work, "case"))
    weights = os.path.join(work, "case", "weights.safetensors")
    lib = os.path.join(work, "libembed.so")
    plain = os.path.join(work, "plain.enc")
    with open(enc_path) as f, open(plain, "w") as g:
        g.writelines(line for line in f if "tokenizer" not in line)
    ec.run([ec.env("ENCC"), plain, "--emit=shared", "-o", lib,
            "--runtime-lib=" + ec.env("ENC_RUNTIME_LIB")])
    words = ["naïve café", "中文字符", "Ελληνικά", "emoji 👩‍👩‍👧",
             "the quick brown fox", "résumé", "123,456.78"]
    texts = ["line %d: %s" % (i, " ".join(words[: i % 8])) for i in range(68)]
    texts[3] = ""
    texts.append("word " * 600)
    texts.append("the last line")
    out = subprocess.run([demo, weights], input="\n".join(texts) + "\n",
                         capture_output=True, text=True)
    if out.returncode != 0:
        print("FAIL demo exited %d: %s" % (out.returncode, out.stderr))
        return 1
    got = np.array([[float(v) for v in line.split()]
                    for line in out.stdout.splitlines()], dtype=np.float64)
    m = enc.load(lib, weights, NAME)
    tok = enc.Tokenizer.from_file(tokenizer)
    failures = 0
    ids = subprocess.run([demo, "--ids"], input="\n".join(texts) + "\n",
                         capture_output=True, text=True, check=True).stdout
    got_ids = [[int(v) for v in line.split()] for line in ids.split("\n")[:-1]]
    want_ids = []
    for t in texts:
        e = tok.encode(t)
        want_ids.append(e.ids[:sum(e.attention_mask)])
    ok = got_ids == want_ids
    failures += not ok
    print("%-4s %d texts: all_minilm_l6_v2_tokenize == enc.Tokenizer's ids"
          % ("ok" if ok else "FAIL", len(texts)))
    rows = []
    for t in texts:
        e = tok.encode(t)
        n = sum(e.attention_mask)
        rows.append(m.forward(np.array([e.ids[:n]]),
                              token_types=np.array([e.type_ids[:n]]))[0])
    want = np.stack(rows)
    if got.shape != want.shape:
        print("FAIL shape %s, want %s" % (got.shape, want.shape))
        return 1
    diff = float(np.abs(got - want).max())
    ok = diff <= 1e-5
    failures += not ok
    print("%-4s %d embeddings == forward of each text alone (max |diff| %.2e)"
          % ("ok" if ok else "FAIL", len(texts), diff))
    # The same model as a shared library with its tokenizer, from Python.
    withtok = os.path.join(work, "libwithtok.so")
    ec.run([ec.env("ENCC"), enc_path, "--emit=shared", "-o", withtok,
            "--runtime-lib=" + ec.env("ENC_RUNTIME_LIB")])
    mt = enc.load(withtok, weights, NAME)
    py = mt.embed_text(texts)
    diff = float(np.abs(py - want).max())
    ok = py.shape == want.shape and diff <= 1e-5
    failures += not ok
    print("%-4s Model.embed_text (--emit=shared) == forward of each text "
          "alone (max |diff| %.2e)" % ("ok" if ok else "FAIL", diff))
    # model.tokenizer: a copy of the compiled-in image, opened from Python.
    import ctypes
    fn = mt._library.function(NAME + "_tokenizer_file")
    data, size = ctypes.c_void_p(), ctypes.c_size_t()
    fn.argtypes = [ctypes.c_void_p] * 3
    fn(ctypes.addressof(data), ctypes.addressof(size), None)
    image = ctypes.string_at(data.value, size.value)
    ok = image.startswith(b"ENCTOK") and data.value % 8 == 0
    failures += not ok
    print("%-4s %s_tokenizer_file gives the compiled image (%d bytes, aligned)"
          % ("ok" if ok else "FAIL", NAME, len(image)))
    ok = all(mt.tokenizer.encode(t).ids == tok.encode(t).ids for t in texts)
    failures += not ok
    print("%-4s Model.tokenizer encodes as enc.Tokenizer.from_file"
          % ("ok" if ok else "FAIL"))
    diff = float(np.abs(mt.encode(texts) - py).max())
    ok = diff <= 1e-5
    failures += not ok
    print("%-4s Model.encode without a tokenizer == Model.embed_text "
          "(max |diff| %.2e)" % ("ok" if ok else "FAIL", diff))
    cases = [("Model.tokenizer without a tokenizer", lambda: m.tokenizer,
              "no compiled-in tokenizer"),
             ("Model.embed_text without a tokenizer", lambda: m.embed_text(texts),
              "no compiled-in tokenizer"),
             ("invalid UTF-8", lambda: mt.embed_text(["fine", "bad \ud800 surrogate"]),
              "text 1")]
    for what, call, says in cases:
        failures += not raises_input_error(what, call, says)
    norms = np.linalg.norm(got, axis=1)
    ok = bool(np.allclose(norms, 1, atol=1e-5))
    failures += not ok
    print("%-4s unit rows" % ("ok" if ok else "FAIL"))
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
