#!/usr/bin/env python3
"""Weights and tokens for the seed toy, from the article's numpy example.

Draws the token vectors and the per-head W_Q, W_K, W_V exactly as the article
does (numpy default_rng(2), normal * 0.2), and stores them under docs/weights.md's
weight names: head h's [d_model, d_k] projection becomes rows h*d_k.. of the
[d_model, d_model] PyTorch-layout matrix. The article stops at the
concatenated heads, so the output projection is the identity, biases are 0,
the norms are (1, 0) and the FFN is zero: the block computes
LayerNorm(LayerNorm(X + MultiHead(X))).

usage: make_weights.py WEIGHTS.safetensors TOKENS.bin
"""
import json
import struct
import sys

import numpy as np

n, d_model, h = 5, 8, 2
d_k = d_model // h
d_ff = 4 * d_model

rng = np.random.default_rng(2)
tokens = rng.normal(size=(n, d_model))
wq, wk, wv = (np.zeros((d_model, d_model)) for _ in range(3))
for head in range(h):
    rows = slice(head * d_k, (head + 1) * d_k)
    wq[rows] = (rng.normal(size=(d_model, d_k)) * 0.2).T
    wk[rows] = (rng.normal(size=(d_model, d_k)) * 0.2).T
    wv[rows] = (rng.normal(size=(d_model, d_k)) * 0.2).T

p = "blocks.0."
weights = {
    p + "attn.q.weight": wq, p + "attn.k.weight": wk, p + "attn.v.weight": wv,
    p + "attn.o.weight": np.eye(d_model),
    p + "ffn.up.weight": np.zeros((d_ff, d_model)), p + "ffn.up.bias": np.zeros(d_ff),
    p + "ffn.down.weight": np.zeros((d_model, d_ff)),
}
for name in ("q", "k", "v", "o"):
    weights[p + "attn.%s.bias" % name] = np.zeros(d_model)
weights[p + "ffn.down.bias"] = np.zeros(d_model)
for norm in ("norm1", "norm2"):
    weights[p + norm + ".weight"] = np.ones(d_model)
    weights[p + norm + ".bias"] = np.zeros(d_model)

header, offset, blobs = {}, 0, []
for name, value in weights.items():
    blob = np.ascontiguousarray(value, dtype="<f4").tobytes()
    header[name] = {"dtype": "F32", "shape": list(value.shape),
                    "data_offsets": [offset, offset + len(blob)]}
    offset += len(blob)
    blobs.append(blob)
text = json.dumps(header).encode()
text += b" " * (-len(text) % 8)
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
tokens.astype("<f4").tofile(sys.argv[2])
print("wrote %s (%d tensors) and %s (%d tokens of width %d)" % (
    sys.argv[1], len(weights), sys.argv[2], n, d_model))
