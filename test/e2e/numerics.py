#!/usr/bin/env python3
"""Numerical edge cases through encoders compiled by encc.

Inputs of huge magnitude (1e30), denormal inputs and all-equal rows are
compared with the float64 reference (reference.py) under the bound of
docs/numerics.md#accuracy,
|out - ref| <= 1e-4 * max(1, |ref|), and must be finite. A NaN in one
sequence of a batch, or a NaN/inf in a padded position (j >= len), must not
reach any other output: those are compared bit for bit with the same call on
clean input. Prints one line per case; exits 1 if any fails.

Where fp32 cannot follow: with 1e30 inputs a post-LN encoder (Inputs/
numerics.enc post_ln) feeds the raw input to attention, whose scores are of
order |x|^2 = 1e60 > FLT_MAX (3.4e38); the float64 reference is finite, the
fp32 one cannot be. That case is printed for the record but not judged.

usage: numerics.py WORKDIR   (environment as in encc_case.py)
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

ENC = os.path.join(HERE, "Inputs", "numerics.enc")
WORK = sys.argv[1]
D = 32  # d_model of every encoder in numerics.enc
failures = []


class Model:
    """One encoder compiled and linked with the harness, with random weights."""

    def __init__(self, encoder):
        self.spec = reference.normalize_spec(ec.spec_of(ENC, encoder))
        self.dir = os.path.join(WORK, encoder)
        self.exe = ec.build_model(ENC, encoder, self.dir + ".build")
        os.makedirs(self.dir, exist_ok=True)
        w = reference.random_weights(self.spec, seed=11)
        self.weights = st.write_safetensors(
            os.path.join(self.dir, "weights.safetensors"), w, "F32")

    def run(self, x, lengths=None):
        """x: float32 [B, S, D] -> the encoder's output as float32."""
        x = np.ascontiguousarray(x, dtype=np.float32)
        B, S = x.shape[:2]
        x.astype("<f4").tofile(os.path.join(self.dir, "embeddings.bin"))
        files = {"embeddings": "embeddings.bin"}
        if lengths is not None:
            np.asarray(lengths, dtype="<i4").tofile(os.path.join(self.dir, "lengths.bin"))
            files["lengths"] = "lengths.bin"
        rows = B if self.spec["pooling"] != "none" else B * S
        out = ec.run_model(self.exe, self.dir, {"batch": B, "seq": S, "files": files},
                           self.spec, rows * D)
        return out.reshape((B, D) if self.spec["pooling"] != "none" else (B, S, D))

    def reference(self, x, lengths=None):
        return reference.forward(self.spec, self.weights,
                                 embeddings=np.asarray(x, dtype=np.float32).astype(np.float64),
                                 lengths=lengths)


def check(name, ok, detail):
    print("%-4s %-40s %s" % ("ok" if ok else "FAIL", name, detail), flush=True)
    if not ok:
        failures.append(name)


def against_reference(name, model, x, lengths=None, judge=True):
    out = model.run(x, lengths)
    ref = model.reference(x, lengths)
    finite = bool(np.all(np.isfinite(out)))
    err = np.abs(out.astype(np.float64) - ref)
    scaled = err / np.maximum(1.0, np.abs(ref))
    detail = "finite %s, max|ref| %.3g, max|err| %.3g, max err/max(1,|ref|) %.3g" % (
        finite, np.abs(ref).max(), np.nanmax(err) if finite else float("nan"),
        np.nanmax(scaled) if finite else float("nan"))
    if judge:
        check(name, finite and scaled.max() <= ec.TOLERANCE, detail)
    else:
        print("note %-40s %s (not judged: beyond fp32's range)" % (name, detail), flush=True)
    return out


def same_bits(a, b):
    return a.shape == b.shape and a.tobytes() == b.tobytes()


rng = np.random.default_rng(2)
normed, normed_mean = Model("normed_in"), Model("normed_mean")
pre, post = Model("pre_ln"), Model("post_ln")
unit = rng.standard_normal((2, 7, D)).astype(np.float32)

# Huge inputs: LayerNorm of rows of scale 1e30 is finite in float64; in fp32
# the squared deviations (1e60) overflow unless the kernel rescales.
huge = (unit * np.float32(1e30)).astype(np.float32)
against_reference("huge 1e30, LayerNorm first", normed, huge)
against_reference("huge 1e30, pre-LN residual", pre, huge)
against_reference("huge 1e30 plus offset 1e30", normed, huge + np.float32(1e30))
against_reference("huge 1e30, post-LN", post, huge, judge=False)

# Denormal inputs (fp32 subnormals are below 1.18e-38): all subnormal, and
# unit inputs with every third element subnormal.
tiny = (unit * np.float32(1e-39)).astype(np.float32)
assert np.all(np.abs(tiny[tiny != 0]) < np.finfo(np.float32).tiny)
against_reference("denormal inputs, LayerNorm first", normed, tiny)
against_reference("denormal inputs, post-LN", post, tiny)
mixed = unit.copy()
mixed.reshape(-1)[::3] = tiny.reshape(-1)[::3]
against_reference("every third input denormal, post-LN", post, mixed)

# All-equal rows: zero variance, so LayerNorm gives beta (no NaN from 0/0),
# at any magnitude when it comes first; post-LN takes moderate ones (its
# attention sees the raw input, see above).
const = np.empty((2, 7, D), dtype=np.float32)
for i, c in enumerate([0.0, 1.0, -2.5, 1e30, -1e30, 1e-40, 3.0e38]):
    const[:, i, :] = c
against_reference("all-equal rows up to 3e38, LayerNorm first", normed, const)
for i, c in enumerate([0.0, 1.0, -2.5, 7.0, -0.125, 1e-40, 3.0]):
    const[:, i, :] = c
against_reference("all-equal rows, post-LN", post, const)

# NaN in one sequence of a batch: the others are bit-identical to the same
# batch without it, and to each of them run alone.
for model in (post, pre, normed_mean):
    x = unit.repeat(2, axis=0)[:3]  # [3, 7, D]
    lengths = [7, 5, 6]
    clean = model.run(x, lengths)
    bad = x.copy()
    bad[1, 2, 5] = np.nan
    out = model.run(bad, lengths)
    others = [0, 2]
    ok = all(same_bits(out[b], clean[b]) for b in others)
    alone = all(same_bits(model.run(x[b:b + 1], lengths[b:b + 1])[0], clean[b])
                for b in others)
    nan_rows = int(np.isnan(out[1]).any(axis=-1).sum())
    check("NaN in sequence 1 of 3, %s" % model.spec["name"], ok and alone,
          "others bit-identical: to clean batch %s, to alone %s; NaN rows in "
          "sequence 1: %d" % (ok, alone, nan_rows))

# NaN and inf in padded positions (j >= len) reach no valid row, and padded
# output rows are 0 (mean pooling: the mean of the valid rows).
for model in (post, normed_mean):
    lengths = [5, 3]
    x = unit.copy()
    clean = model.run(x, lengths)
    bad = x.copy()
    bad[0, 5, :] = np.nan
    bad[0, 6, 3] = np.inf
    bad[1, 3:, :] = -np.inf
    bad[1, 4, 0] = np.nan
    out = model.run(bad, lengths)
    check("NaN/inf in padded positions, %s" % model.spec["name"],
          same_bits(out, clean) and bool(np.all(np.isfinite(out))),
          "output bit-identical to the call with those positions clean: %s" % same_bits(out, clean))

print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
