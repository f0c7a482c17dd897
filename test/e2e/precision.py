#!/usr/bin/env python3
"""precision = int8 and bf16 through compiled encoders, against the float64
reference.

The fp32 per-element bound of docs/numerics.md#accuracy does not apply to
int8 or bf16: docs/numerics.md#precision bounds the cosine similarity of each
output vector with the reference's, >= 0.999 for int8 and >= 0.9999 for
bf16, and of the mean-pooled embedding.
BERT-shaped encoders (Inputs/precision.enc) at BERT-base's and MiniLM's
widths run with weights of unit scale (reference.random_weights) and of
BERT's initialisation (normal, std 0.02); each case prints the smallest
token cosine, the pooled cosine and max |err|. Exits 1 if any case fails.

usage: precision.py WORKDIR   (environment as in encc_case.py)
"""
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import encc_case as ec  # noqa: E402
from enc_dev import reference  # noqa: E402
from enc_dev import safetensors_io as st  # noqa: E402

ENC = os.path.join(HERE, "Inputs", "precision.enc")
WORK = sys.argv[1]
MIN_COSINE = {"int8": 0.999, "bf16": 0.9999}
BATCH, SEQ = 2, 24
LENGTHS = [SEQ, 17]


def bert_init_weights(spec, seed):
    """BERT's initialisation: every matrix and table normal with std 0.02,
    biases 0, norms weight 1 and bias 0."""
    rng = np.random.default_rng(seed)
    w = {}
    for name, shape in reference.weight_shapes(spec).items():
        if "norm" in name:
            w[name] = np.ones(shape) if name.endswith(".weight") else np.zeros(shape)
        elif name.endswith(".bias"):
            w[name] = np.zeros(shape)
        else:
            w[name] = 0.02 * rng.standard_normal(shape)
    return w


def cosines(out, ref):
    """Cosine of each row of out with the same row of ref."""
    dot = np.sum(out * ref, axis=-1)
    return dot / (np.linalg.norm(out, axis=-1) * np.linalg.norm(ref, axis=-1))


def run_case(encoder, exe, spec, weights_kind, seed):
    min_cosine = MIN_COSINE[spec["precision"]]
    casedir = os.path.join(WORK, "%s-%s" % (encoder, weights_kind))
    os.makedirs(casedir, exist_ok=True)
    w = (reference.random_weights(spec, seed) if weights_kind == "unit-scale"
         else bert_init_weights(spec, seed))
    stored = st.write_safetensors(os.path.join(casedir, "weights.safetensors"), w, "F32")
    rng = np.random.default_rng(seed + 1)
    tokens = rng.integers(0, spec["vocab"], size=(BATCH, SEQ)).astype(np.int32)
    types = rng.integers(0, spec["type_vocab"], size=(BATCH, SEQ)).astype(np.int32)
    lengths = np.asarray(LENGTHS, dtype=np.int32)
    tokens.astype("<i4").tofile(os.path.join(casedir, "tokens.bin"))
    types.astype("<i4").tofile(os.path.join(casedir, "types.bin"))
    lengths.astype("<i4").tofile(os.path.join(casedir, "lengths.bin"))
    ref = reference.forward(spec, stored, tokens=tokens, token_types=types,
                            lengths=lengths)
    d = spec["d_model"]
    out = ec.run_model(exe, casedir, {"batch": BATCH, "seq": SEQ, "files": {
        "tokens": "tokens.bin", "token_types": "types.bin", "lengths": "lengths.bin"}},
        spec, BATCH * SEQ * d).astype(np.float64).reshape(BATCH, SEQ, d)
    token_cos, pooled_cos, max_err = [], [], 0.0
    for b in range(BATCH):
        n = LENGTHS[b]
        o, r = out[b, :n], ref[b, :n]
        token_cos.extend(cosines(o, r))
        pooled_cos.append(cosines(o.mean(axis=0), r.mean(axis=0)))
        max_err = max(max_err, float(np.abs(o - r).max()))
        if np.any(out[b, n:] != 0):
            token_cos.append(float("nan"))  # padding rows must be zero
    worst, pooled = float(np.min(token_cos)), float(np.min(pooled_cos))
    ok = (np.all(np.isfinite(out)) and worst >= min_cosine and pooled >= min_cosine)
    print("%s %s, %s weights: min token cosine %.7f, pooled cosine %.7f, max |err| %.4g "
          "(max |ref| %.3g)" % ("ok  " if ok else "FAIL", encoder, weights_kind, worst,
                                pooled, max_err, float(np.abs(ref).max())))
    return ok


def main():
    failed = 0
    for encoder in ("bert_int8", "minilm_int8", "bert_bf16", "minilm_bf16"):
        spec = reference.normalize_spec(ec.spec_of(ENC, encoder))
        if spec["precision"] != encoder.split("_")[-1]:
            raise SystemExit("precision.py: %s is not a %s encoder"
                             % (encoder, encoder.split("_")[-1]))
        exe = ec.build_model(ENC, encoder, os.path.join(WORK, encoder + ".build"))
        for seed, kind in ((3, "unit-scale"), (5, "bert-init")):
            failed += not run_case(encoder, exe, spec, kind, seed)
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
