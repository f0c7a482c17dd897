#!/usr/bin/env python3
"""enc.Model.forward(..., attention=True) (NAME_forward_attention) against
the float64 reference (python/enc_dev/reference.py, return_probs) and PyTorch
(python/enc_dev/torch_export.py, return_probs), on padded batches with every
positional scheme applied inside attention (ALiBi, relative, RoPE) and the
additive ones, and local windows (zero outside each row's window).

For each case: the output equals forward()'s bit for bit; the probabilities
[blocks, batch, heads, seq_len, seq_len] are within docs/numerics.md's
tolerance of both references (printed), and exactly zero on padded rows and
columns.

usage: test_attention.py WORKDIR   (environment as in test/e2e/encc_case.py,
PYTHONPATH naming python/)
"""
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
E2E = os.path.join(HERE, "..", "e2e")
sys.path.insert(0, E2E)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import encc_case as ec  # noqa: E402
from enc_dev import reference  # noqa: E402
from enc_dev import torch_export  # noqa: E402

import enc  # noqa: E402

CONFORMANCE = os.path.join(E2E, "Inputs", "conformance.enc")
TOLERANCE = 1e-4
failures = []


def case(work, encoder, batch, seq, lengths, seed):
    spec = ec.spec_of(CONFORMANCE, encoder)
    casedir = os.path.join(work, encoder)
    _, stored, inputs = reference.make_case(spec, seed, batch, seq, lengths,
                                            outdir=casedir)
    lib = os.path.join(work, "lib%s.so" % encoder)
    ec.run([ec.env("ENCC"), CONFORMANCE, "--emit=shared", "--encoder=" + encoder,
            "-o", lib, "--runtime-lib=" + ec.env("ENC_RUNTIME_LIB")])
    m = enc.load(lib, os.path.join(casedir, "weights.safetensors"))
    x = inputs.get("tokens", inputs.get("embeddings"))
    kw = {"lengths": inputs.get("lengths"), "token_types": inputs.get("token_types")}
    y = m.forward(x, **kw)
    y2, probs = m.forward(x, attention=True, **kw)
    args = {k: inputs[k] for k in ("tokens", "token_types", "embeddings") if k in inputs}
    _, ref_probs = reference.forward(spec, stored, lengths=inputs.get("lengths"),
                                     return_probs=True, **args)
    _, torch_probs = torch_export.torch_forward(spec, stored, lengths=inputs.get("lengths"),
                                                return_probs=True, **args)
    same = np.array_equal(y.view(np.uint32), y2.view(np.uint32))
    shape_ok = probs.shape == (m.blocks, batch, m.heads, seq, seq) == ref_probs.shape
    err_ref = float(np.abs(probs - ref_probs).max()) if shape_ok else float("inf")
    err_torch = float(np.abs(probs - torch_probs).max()) if shape_ok else float("inf")
    lens = inputs.get("lengths", np.full(batch, seq))
    zeros = shape_ok and all(not probs[:, b, :, lens[b]:].any() and
                             not probs[:, b, :, :, lens[b]:].any() for b in range(batch))
    # Every probability the reference has exactly 0 (padding, outside a
    # local window) is exactly 0 here too.
    zeros = zeros and not probs[ref_probs == 0].any()
    ok = same and shape_ok and zeros and err_ref <= TOLERANCE and err_torch <= TOLERANCE
    print("%-4s %-12s %s lengths %s: output == forward(): %s; probs max|err| vs float64 "
          "%.2g, vs torch %.2g; padding exactly 0: %s" % (
              "ok" if ok else "FAIL", encoder, probs.shape, list(map(int, lens)), same,
              err_ref, err_torch, zeros), flush=True)
    if not ok:
        failures.append(encoder)
    return m, x, kw


def null_pointers(m, x, kw):
    """NAME_forward_attention through the C ABI: out may be NULL (the same
    probabilities), probs may not (ENC_ERR_INPUT, naming it)."""
    import ctypes
    from enc._library import EncInput
    _, want = m.forward(x, attention=True, **kw)
    tokens = np.ascontiguousarray(x, np.int32)
    lengths = np.ascontiguousarray(kw["lengths"], np.int32)
    types = np.ascontiguousarray(kw["token_types"], np.int32)
    inp = EncInput(tokens.shape[0], tokens.shape[1])
    inp.tokens, inp.lengths, inp.token_types = (a.ctypes.data for a in (tokens, lengths, types))
    probs = np.full(want.shape, -1.0, np.float32)
    fn = m._forward_attention_fn
    s1 = fn(m._handle, ctypes.addressof(inp), None, probs.ctypes.data)
    ok1 = s1 == 0 and np.array_equal(probs.view(np.uint32), want.view(np.uint32))
    s2 = fn(m._handle, ctypes.addressof(inp), None, None)
    message = m._library.error(s2) if s2 else None
    ok2 = s2 != 0 and message.status == "input" and "probs is NULL" in str(message)
    print("%-4s out NULL: the same probabilities: %s; probs NULL: %s" % (
        "ok" if ok1 and ok2 else "FAIL", ok1, message), flush=True)
    if not (ok1 and ok2):
        failures.append("null pointers")


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    m, x, kw = case(work, "bert_like", 3, 11, [11, 5, 0], 21)
    null_pointers(m, x, kw)
    case(work, "alibi6", 2, 10, [10, 7], 22)
    case(work, "relative", 2, 40, [40, 17], 23)
    case(work, "rope_halves", 2, 13, [13, 6], 24)
    case(work, "rope_interleaved", 2, 13, [13, 1], 25)
    case(work, "t5_like", 2, 25, [25, 9], 26)
    case(work, "bert_cls", 3, 7, [7, 2, 0], 27)
    # Local windows: probabilities are 0 outside each row's window.
    case(work, "modernbert_local", 2, 30, [30, 13], 28)
    case(work, "local_alibi", 2, 25, [25, 9], 29)
    case(work, "local_relative", 2, 21, [21, 4], 30)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
