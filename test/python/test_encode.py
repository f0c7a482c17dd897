#!/usr/bin/env python3
"""enc.Model.encode (texts -> pooled embeddings, as sentence-transformers'
encode) with an enc.Tokenizer, on a small encoder of BERT's vocabulary:

- 40 texts of mixed lengths in batches of 8 give, row for row in the order
  given, what forward gives each text alone (batching by length and padding
  change nothing but the order of work);
- normalize_embeddings gives unit rows in the same directions; one str gives
  one vector;
- a text past max_len, a model that does not pool and a bad batch_size are
  enc.Error("input") naming what is wrong; truncation in the tokenizer
  makes the long text fit;
- predict on (query, passage) pairs with a classifier head gives, row for
  row, what forward gives each pair alone ([n] for one label, [n, 3] for
  three); rerank orders the passages by that score, highest first, and
  top_k keeps the first; both refuse a model whose head cannot serve them;
- embed_multi with a ColBERT head gives each text's [tokens, 8] unit rows,
  what forward gives it alone; a pooling model refuses it;
- embed_sparse with a SPLADE head gives each text's {id: weight} of the
  positive weights forward gives it alone, heaviest first; top_k keeps the
  first k, threshold drops the light ones; a model without the head refuses.

usage: test_encode.py TOKENIZER_INPUTS WORKDIR  (environment as in
test/e2e/encc_case.py, PYTHONPATH naming python/, ENC_TOKENIZER_LIBRARY)
"""
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import encc_case as ec  # noqa: E402

import enc  # noqa: E402
from enc_dev.checks import check, finish  # noqa: E402

ENC = """
encoder tiny_mean {
  d_model = 16; heads = 2; d_ff = 32; blocks = 2; max_len = 48;
  vocab = 30522; type_vocab = 2; positional = learned; embed_norm = true;
  activation = gelu; eps = 1e-12; pooling = mean;
}
encoder tiny_none : tiny_mean { pooling = none; }
encoder tiny_cross : tiny_mean {
  pooling = cls; head = classifier(labels = 1, scores = sigmoid);
}
encoder tiny_nli : tiny_cross { head = classifier(labels = 3); }
encoder tiny_colbert : tiny_mean { pooling = none; head = colbert(dim = 8); }
encoder tiny_splade : tiny_mean { pooling = max; head = splade; }
encoder tiny_nli_text : tiny_nli { tokenizer = "TOKENIZER"; }
"""



def input_error(fn):
    try:
        fn()
    except enc.Error as e:
        return e if e.status == "input" else None
    return None


def main():
    inputs, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    enc_path = os.path.join(work, "tiny.enc")
    with open(enc_path, "w") as f:
        f.write(ENC.replace("TOKENIZER", os.path.abspath(os.path.join(
            inputs, "bert-base-uncased", "tokenizer.json"))))
    spec = ec.spec_of(enc_path, "tiny_mean")
    ec.reference.make_case(spec, 3, 1, 4, outdir=os.path.join(work, "case"))
    weights = os.path.join(work, "case", "weights.safetensors")
    lib = os.path.join(work, "libtiny.so")
    ec.run([ec.env("ENCC"), enc_path, "--emit=shared", "-o", lib,
            "--runtime-lib=" + ec.env("ENC_RUNTIME_LIB")])
    m = enc.load(lib, weights, "tiny_mean")
    tok = enc.Tokenizer.from_file(os.path.join(inputs, "bert-base-uncased",
                                               "tokenizer.json"))
    texts = ["text %d: %s" % (i, " ".join(["naïve café"] * (i % 9)))
             for i in range(40)]
    got = m.encode(texts, tok, batch_size=8)
    alone = np.stack([
        m.forward(np.array([e.ids]), token_types=np.array([e.type_ids]))[0]
        for e in (tok.encode(t) for t in texts)])
    diff = float(np.abs(got - alone).max())
    check(got.shape == (40, 16) and got.dtype == np.float32,
          "encode: shape %s %s" % (got.shape, got.dtype))
    check(diff <= 1e-5 * max(1.0, float(np.abs(alone).max())),
          "encode == forward of each text alone (max |diff| %.2e)" % diff)
    check(np.array_equal(m.embed(texts, tok, batch_size=8), got),
          "embed (text-embeddings-inference's name) == encode")
    unit = m.encode(texts, tok, batch_size=8, normalize_embeddings=True)
    norms = np.linalg.norm(unit, axis=1)
    cos = np.sum(unit * alone, axis=1) / np.linalg.norm(alone, axis=1)
    check(np.allclose(norms, 1, atol=1e-5) and np.allclose(cos, 1, atol=1e-5),
          "normalize_embeddings: unit rows, same directions")
    one = m.encode(texts[5], tok)
    check(one.shape == (16,) and np.allclose(one, alone[5], atol=1e-5),
          "one str -> one vector")
    long_text = "word " * 100
    err = input_error(lambda: m.encode([texts[0], long_text], tok))
    check(err is not None and "sentence 1 has 102 tokens" in str(err),
          "too long: %s" % err)
    tok.enable_truncation(m.max_len)
    check(m.encode([long_text], tok).shape == (1, 16),
          "enable_truncation(max_len) makes it fit")
    none = enc.load(lib, weights, "tiny_none")
    err = input_error(lambda: none.encode(texts, tok))
    check(err is not None and "pooling none" in str(err),
          "a model that does not pool: %s" % err)
    err = input_error(lambda: m.encode(texts, tok, batch_size=0))
    check(err is not None and "batch_size" in str(err), "batch_size 0: %s" % err)
    heads(inputs, work, enc_path, lib, tok)
    return finish()


def heads(inputs, work, enc_path, lib, tok):
    query = "what is a naïve café"
    docs = ["doc %d: %s" % (i, " ".join(["café"] * (i % 5) + ["tea"] * (i % 3)))
            for i in range(12)]
    pairs = [(query, d) for d in docs]
    for name, labels in (("tiny_cross", 1), ("tiny_nli", 3)):
        spec = ec.spec_of(enc_path, name)
        ec.reference.make_case(spec, 4, 1, 4, outdir=os.path.join(work, name))
        m = enc.load(lib, os.path.join(work, name, "weights.safetensors"), name)
        got = m.predict(pairs, tok, batch_size=5)
        alone = np.stack([
            m.forward(np.array([e.ids]), token_types=np.array([e.type_ids]))[0]
            for e in (tok.encode(q, d) for q, d in pairs)])
        want = alone[:, 0] if labels == 1 else alone
        diff = float(np.abs(got - want).max())
        check(m.head == "classifier" and m.out_dim == labels and got.shape == want.shape
              and m.scores == ("sigmoid" if labels == 1 else "none")
              and diff <= 1e-5, "%s predict: shape %s == forward of each pair alone "
              "(max |diff| %.2e), scores %s" % (name, got.shape, diff, m.scores))
        if labels == 1:
            check(bool(np.all((got > 0) & (got < 1))), "sigmoid scores in (0, 1)")
            ranked = m.rerank(query, docs, tokenizer=tok)
            order = sorted(range(len(docs)), key=lambda i: -float(want[i]))
            check([i for i, _ in ranked] == order and
                  all(abs(s - float(want[i])) <= 1e-5 for i, s in ranked),
                  "rerank: highest score first, %s" % [i for i, _ in ranked][:5])
            check(m.rerank(query, docs, top_k=3, tokenizer=tok) == ranked[:3],
                  "rerank top_k=3 keeps the first three")
        else:
            err = input_error(lambda: m.rerank(query, docs, tokenizer=tok))
            check(err is not None and "3 labels" in str(err),
                  "rerank of a 3-label head: %s" % err)
            # The compiled-in tokenizer's embed_text: rows of the head's
            # width, as predict gives each text.
            text = enc.load(lib, os.path.join(work, name, "weights.safetensors"),
                            "tiny_nli_text")
            rows = text.embed_text(docs)
            want = text.predict(docs, tok)
            check(rows.shape == (len(docs), 3) and float(np.abs(rows - want).max()) <= 1e-5,
                  "tiny_nli_text embed_text: [%d, 3] rows == predict of each text"
                  % len(docs))
    spec = ec.spec_of(enc_path, "tiny_colbert")
    ec.reference.make_case(spec, 5, 1, 4, outdir=os.path.join(work, "tiny_colbert"))
    cb = enc.load(lib, os.path.join(work, "tiny_colbert", "weights.safetensors"),
                  "tiny_colbert")
    multi = cb.embed_multi(docs, tok, batch_size=5)
    alone = [cb.forward(np.array([e.ids]), token_types=np.array([e.type_ids]))[0]
             for e in (tok.encode(d) for d in docs)]
    same = all(m.shape == a.shape == (len(a), 8) and np.abs(m - a).max() <= 1e-5
               for m, a in zip(multi, alone))
    unit = all(np.allclose(np.linalg.norm(m, axis=1), 1, atol=1e-5) for m in multi)
    check(cb.head == "colbert" and cb.out_dim == 8 and same and unit,
          "tiny_colbert embed_multi: [tokens, 8] unit rows == forward of each text alone")
    spec = ec.spec_of(enc_path, "tiny_splade")
    ec.reference.make_case(spec, 5, 1, 4, outdir=os.path.join(work, "tiny_splade"))
    sp = enc.load(lib, os.path.join(work, "tiny_splade", "weights.safetensors"),
                  "tiny_splade")
    sparse = sp.embed_sparse(docs, tok, batch_size=3)
    alone = [sp.forward(np.array([e.ids]), token_types=np.array([e.type_ids]))[0]
             for e in (tok.encode(d) for d in docs)]
    same = all(sorted(m) == list(np.flatnonzero(a > 0)) and
               all(abs(m[i] - a[i]) <= 1e-5 for i in m) and
               list(m.values()) == sorted(m.values(), reverse=True)
               for m, a in zip(sparse, alone))
    check(sp.head == "splade" and sp.out_dim == 30522 and same and len(sparse[0]) > 10,
          "tiny_splade embed_sparse: {id: weight} == the positive weights of forward "
          "of each text alone, heaviest first (%d terms in text 0)" % len(sparse[0]))
    top = sp.embed_sparse(docs[0], tok, top_k=5)
    light = sp.embed_sparse(docs[0], tok, threshold=0.5)
    check(list(top.items()) == list(sparse[0].items())[:5] and
          light == {i: v for i, v in sparse[0].items() if v > 0.5},
          "tiny_splade embed_sparse top_k=5 keeps the 5 heaviest; threshold=0.5 the "
          "weights above it (%d)" % len(light))
    plain = enc.load(lib, os.path.join(work, "case", "weights.safetensors"), "tiny_mean")
    err = input_error(lambda: plain.embed_sparse(docs, tok))
    check(err is not None and "splade head" in str(err), "embed_sparse without the head: %s"
          % err)
    err = input_error(lambda: plain.embed_multi(docs, tok))
    check(err is not None and "pooling none" in str(err), "embed_multi of a pooling model: %s" % err)
    err = input_error(lambda: plain.predict(pairs, tok))
    check(err is not None and "classifier head" in str(err),
          "predict without a head: %s" % err)


if __name__ == "__main__":
    sys.exit(main())
