#!/usr/bin/env python3
"""The Python package `enc` (python/enc) over shared libraries of
`encc --emit=shared`.

- Results equal the C ABI's bit for bit: the harness linked with the object
  (test/e2e/harness.cpp) and enc.Model.forward run the same case.
- Every bad input raises enc.Error with status "input" and a message naming
  the argument; nothing crashes the interpreter.
- 8 Python threads call forward at once on one model; each gets what a lone
  call gives.
- Load errors carry their status (io, format, weights); two libraries load
  side by side; enc.set_num_threads; help(enc.Model) documents forward.

usage: test_enc.py WORKDIR   (environment as in test/e2e/encc_case.py, plus
PYTHONPATH naming python/)
"""
import io
import json
import os
import sys
import threading
import contextlib

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
E2E = os.path.join(HERE, "..", "e2e")
sys.path.insert(0, E2E)
import encc_case as ec  # noqa: E402

import enc  # noqa: E402
from enc_dev.checks import check, finish  # noqa: E402

CONFORMANCE = os.path.join(E2E, "Inputs", "conformance.enc")


def bits_equal(a, b):
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def shared(work, encoder):
    lib = os.path.join(work, "lib%s.so" % encoder)
    ec.run([ec.env("ENCC"), CONFORMANCE, "--emit=shared", "--encoder=" + encoder,
            "-o", lib, "--runtime-lib=" + ec.env("ENC_RUNTIME_LIB")])
    return lib


def same_as_c(work, name, encoder, lib, **kw):
    """The C harness's output and enc's on one case, bit for bit."""
    r = ec.conformance_case(name, CONFORMANCE, encoder, work, **kw)
    case = np.load(os.path.join(r["casedir"], "inputs.npz"))
    m = enc.load(lib, os.path.join(r["casedir"], "weights.safetensors"))
    x = case["tokens"] if "tokens" in case else case["embeddings"]
    y = m.forward(x, lengths=case["lengths"] if "lengths" in case else None,
                  token_types=case["token_types"] if "token_types" in case else None)
    check(bits_equal(y.reshape(-1), r["out"]),
          "%s: forward == the C ABI bit for bit %s" % (name, y.shape))
    return m, r, case


def expect_input_error(m, what, *args, **kw):
    try:
        m.forward(*args, **kw)
    except enc.Error as e:
        check(e.status == "input", "%s -> enc.Error(%r): %s" % (what, e.status, e))
        return
    except Exception as e:  # anything else is a binding bug
        check(False, "%s -> %s: %s (not enc.Error)" % (what, type(e).__name__, e))
        return
    check(False, "%s -> no error" % what)


def expect_load_error(status, what, *args, **kw):
    try:
        enc.load(*args, **kw)
    except enc.Error as e:
        check(e.status == status, "%s -> enc.Error(%r): %s" % (what, e.status, e))
        return
    check(False, "%s -> no error" % what)


def bad_inputs(m, case):
    tokens, types = case["tokens"], case["token_types"]
    B, S = tokens.shape
    expect_input_error(m, "float tokens", tokens.astype(np.float32))
    expect_input_error(m, "bool tokens", tokens > 3)
    expect_input_error(m, "rank-1 tokens", tokens[0])
    expect_input_error(m, "rank-3 tokens", tokens[:, :, None])
    expect_input_error(m, "too long", np.zeros((1, m.max_len + 1), np.int32))
    expect_input_error(m, "empty sequence", np.zeros((1, 0), np.int32))
    expect_input_error(m, "empty batch", np.zeros((0, 4), np.int32))
    bad = tokens.copy()
    bad[1, 3] = m.vocab
    expect_input_error(m, "token == vocab", bad)
    bad[1, 3] = -1
    expect_input_error(m, "token -1", bad)
    expect_input_error(m, "int64 token 2^40", np.full((1, 3), 2**40, np.int64))
    expect_input_error(m, "uint64 token 2^63", np.full((1, 3), 2**63, np.uint64))
    expect_input_error(m, "lengths of the wrong size", tokens, lengths=[S] * (B + 1))
    expect_input_error(m, "lengths 2-d", tokens, lengths=np.full((B, 1), S))
    expect_input_error(m, "float lengths", tokens, lengths=np.full(B, 1.0))
    expect_input_error(m, "length > seq_len", tokens, lengths=[S + 1] + [S] * (B - 1))
    expect_input_error(m, "length -1", tokens, lengths=[-1] + [S] * (B - 1))
    expect_input_error(m, "token_types of the wrong shape", tokens, token_types=types[:, :-1])
    bad = types.copy()
    bad[0, 0] = m.type_vocab
    expect_input_error(m, "token type == type_vocab", tokens, token_types=bad)
    expect_input_error(m, "float token_types", tokens, token_types=types.astype(np.float64))
    expect_input_error(m, "ragged list", [[1, 2, 3], [4]])
    expect_input_error(m, "a string", "hello")
    expect_input_error(m, "embeddings to a token model",
                       np.zeros((1, 3, m.d_model), np.float32))


def conversions(m, case):
    """What converts without changing a value gives the int32 result."""
    tokens, types, lengths = case["tokens"], case["token_types"], case["lengths"]
    ref = m.forward(tokens, lengths=lengths, token_types=types)
    for dtype in (np.int64, np.int16, np.uint8, np.uint32):
        y = m.forward(tokens.astype(dtype), lengths=lengths.astype(dtype),
                      token_types=types.astype(dtype))
        check(bits_equal(y, ref), "%s ids == int32 ids" % np.dtype(dtype).name)
    wide = np.zeros((tokens.shape[0], tokens.shape[1] * 2), np.int32)
    wide[:, ::2] = tokens
    y = m.forward(wide[:, ::2], lengths=lengths, token_types=np.asfortranarray(types))
    check(bits_equal(y, ref), "non-contiguous tokens, Fortran-order types: copied, same result")
    y = m.forward(tokens.tolist(), lengths=lengths.tolist(), token_types=types.tolist())
    check(bits_equal(y, ref), "nested lists == arrays")


def embeddings_model(m, work):
    x = np.random.default_rng(5).standard_normal((2, 6, m.d_model))
    y64 = m.forward(x)
    y32 = m.forward(x.astype(np.float32))
    check(y64.dtype == np.float32 and bits_equal(y64, y32),
          "float64 embeddings are rounded to float32: same result")
    expect_input_error(m, "embeddings of the wrong width", x[:, :, 1:])
    expect_input_error(m, "int embeddings", x.astype(np.int32))
    expect_input_error(m, "rank-2 embeddings", x[0])
    expect_input_error(m, "token_types to a model without them", x,
                       token_types=np.zeros((2, 6), np.int32))


def threads(m, case):
    """8 Python threads at once, each on its own batch, 20 calls each."""
    rng = np.random.default_rng(11)
    inputs = [(rng.integers(0, m.vocab, size=(2, 9)).astype(np.int32),
               rng.integers(1, 10, size=2).astype(np.int32)) for _ in range(8)]
    alone = [m.forward(t, lengths=l) for t, l in inputs]
    results = [[] for _ in inputs]
    errors = []
    start = threading.Barrier(len(inputs))

    def work(i):
        try:
            start.wait()
            for _ in range(20):
                results[i].append(m.forward(inputs[i][0], lengths=inputs[i][1]))
        except Exception as e:  # reported below
            errors.append(repr(e))

    ts = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    same = all(bits_equal(y, alone[i]) for i, ys in enumerate(results) for y in ys)
    check(not errors and same and all(len(r) == 20 for r in results),
          "8 threads x 20 calls at once == each call alone %s" % (errors or ""))


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    lib = shared(work, "bert_like")
    m, r, case = same_as_c(work, "bert_like", "bert_like", lib, batch=3, seq=11,
                           lengths=[11, 5, 0])
    check((m.name, m.d_model, m.heads, m.head_dim, m.d_ff, m.blocks, m.max_len, m.vocab,
           m.type_vocab, m.pooling, m.normalize) ==
          ("bert_like", 48, 6, 8, 96, 2, 40, 101, 3, "none", False),
          "facts: %r" % m)
    bad_inputs(m, case)
    conversions(m, case)
    threads(m, case)

    cls_lib = shared(work, "bert_cls")
    c, _, _ = same_as_c(work, "bert_cls", "bert_cls", cls_lib, batch=3, seq=7,
                        lengths=[7, 2, 0])
    check(c.pooling == "cls" and m.pooling == "none",
          "two libraries side by side, each with its own encoder")
    check(bits_equal(m.forward(case["tokens"], lengths=case["lengths"],
                               token_types=case["token_types"]).reshape(-1), r["out"]),
          "the first library still gives its result after the second loaded")

    # output_dim: rows of out_dim floats, equal to the C harness's.
    mat_lib = shared(work, "matryoshka")
    mt, _, mcase = same_as_c(work, "matryoshka", "matryoshka", mat_lib, batch=3, seq=8,
                             lengths=[8, 3, 0])
    y = mt.forward(mcase["tokens"], lengths=mcase["lengths"], token_types=mcase["token_types"])
    check((mt.pooling, mt.normalize, mt.out_dim, mt.d_model, y.shape) ==
          ("mean", True, 20, 48, (3, 20)),
          "output_dim 20: pooling %s, normalize %s, out_dim %d of d_model %d, shape %s"
          % (mt.pooling, mt.normalize, mt.out_dim, mt.d_model, y.shape))
    last_lib = shared(work, "bert_last")
    lt, _, _ = same_as_c(work, "bert_last", "bert_last", last_lib, batch=3, seq=7,
                         lengths=[7, 2, 0])
    check((lt.pooling, lt.out_dim) == ("last", 48), "pooling last: %s, %d" % (lt.pooling,
                                                                               lt.out_dim))

    emb_lib = shared(work, "rope_halves")
    e, _, _ = same_as_c(work, "rope_halves", "rope_halves", emb_lib, batch=2, seq=13,
                        lengths=[13, 6])
    embeddings_model(e, work)

    weights = os.path.join(r["casedir"], "weights.safetensors")
    expect_load_error("io", "a missing library", os.path.join(work, "nope.so"), weights)
    not_lib = os.path.join(work, "not_a_library.so")
    with open(not_lib, "wb") as f:
        f.write(b"\x7fELF garbage")
    expect_load_error("format", "a file that is not a library", not_lib, weights)
    expect_load_error("format", "a library that is not encc's", "libm.so.6", weights)
    expect_load_error("io", "a missing weights file", lib, os.path.join(work, "nope.safetensors"))
    expect_load_error("weights", "another encoder's weights", cls_lib,
                      os.path.join(work, "rope_halves", "weights.safetensors"))
    expect_load_error("input", "an encoder the library lacks", lib, weights, encoder="bert")

    c.close()
    expect_input_error(c, "forward after close", case["tokens"])
    check(enc.set_num_threads(2) == 2, "set_num_threads(2) -> 2")
    y = m.forward(case["tokens"], lengths=case["lengths"], token_types=case["token_types"])
    check(bits_equal(y.reshape(-1), r["out"]), "2 threads: the same result")
    enc.set_num_threads(0)
    try:
        enc.set_num_threads(-1)
        check(False, "set_num_threads(-1) -> no error")
    except enc.Error as e:
        check(e.status == "input", "set_num_threads(-1) -> enc.Error('input')")

    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        help(enc.Model)
    doc = text.getvalue()
    check("forward(self, x" in doc and "lengths" in doc and "Returns" in doc
          and "enc.Error" in doc, "help(enc.Model) documents forward")
    hints = enc.Model.forward.__annotations__
    check("return" in hints and "x" in hints, "forward has type hints: %s" % sorted(hints))

    return finish()


if __name__ == "__main__":
    sys.exit(main())
