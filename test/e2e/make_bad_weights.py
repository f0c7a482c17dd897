#!/usr/bin/env python3
"""Weights files for bad-input.test: a good one for `bert_like` and ones that
do not match it (missing tensor, Hugging Face names, wrong shape, unsupported
dtype, truncated, not safetensors).

usage: make_bad_weights.py SPEC_JSON OUTDIR
"""
import json
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from enc_dev import reference  # noqa: E402
from enc_dev import safetensors_io as st  # noqa: E402

spec = reference.normalize_spec(json.load(open(sys.argv[1]))["encoders"][0])
out = sys.argv[2]
w = reference.random_weights(spec, seed=3)
st.write_safetensors(os.path.join(out, "good.safetensors"), w, "F32")

missing = dict(w)
del missing["blocks.1.ffn.up.bias"]
st.write_safetensors(os.path.join(out, "missing.safetensors"), missing, "F32")

# The same weights under Hugging Face BertForMaskedLM's names.
hf_names = {"attn.q": "attention.self.query", "attn.k": "attention.self.key",
            "attn.v": "attention.self.value", "attn.o": "attention.output.dense"}
hf = {}
for name, value in w.items():
    parts = name.split(".")
    if parts[0] == "blocks":
        inner = ".".join(parts[2:4])
        rest = hf_names.get(inner, inner) + "." + ".".join(parts[4:])
        name = "encoder.layer.%s.%s" % (parts[1], rest)
    hf["bert." + name] = value
st.write_safetensors(os.path.join(out, "hf_bert.safetensors"), hf, "F32")

shape = dict(w)
shape["blocks.0.attn.k.weight"] = np.zeros((48, 47))
st.write_safetensors(os.path.join(out, "shape.safetensors"), shape, "F32")

dtypes = {k: "F32" for k in w}
dtypes["embed.norm.weight"] = "F64"
st.write_safetensors(os.path.join(out, "dtype.safetensors"), w, dtypes)

data = open(os.path.join(out, "good.safetensors"), "rb").read()
open(os.path.join(out, "truncated.safetensors"), "wb").write(data[: len(data) // 2])
open(os.path.join(out, "junk.safetensors"), "wb").write(b"\xff" * 64)
