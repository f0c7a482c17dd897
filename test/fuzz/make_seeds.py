#!/usr/bin/env python3
"""Weights and seed inputs for the fuzz targets (deterministic).

usage: make_seeds.py weights OUT.safetensors   valid weights for fuzz_toy.enc
       make_seeds.py safetensors DIR           fuzz_safetensors seeds
       make_seeds.py inputs DIR                fuzz_runtime_input seeds

The safetensors seeds are the toy's weights in F32, F16, BF16 and mixed, plus
one file for each kind of damage docs/weights.md#errors lists, so that the fuzzer starts
next to every check of the loader. The input seeds follow the byte encoding
documented in fuzz_runtime_input.cc.
"""
import json
import os
import struct
import sys

import numpy as np

D, FF, VOCAB, TYPES, MAX_LEN = 8, 16, 32, 2, 16


def toy_weights():
    rng = np.random.default_rng(6)
    w = {"embed.tokens": (VOCAB, D), "embed.types": (TYPES, D),
         "embed.positions": (MAX_LEN, D), "embed.norm.weight": (D,),
         "embed.norm.bias": (D,)}
    p = "blocks.0."
    for m in "qkvo":
        w[p + "attn.%s.weight" % m] = (D, D)
        w[p + "attn.%s.bias" % m] = (D,)
    for n in ("norm1", "norm2"):
        w[p + n + ".weight"] = (D,)
        w[p + n + ".bias"] = (D,)
    w[p + "ffn.up.weight"] = (FF, D)
    w[p + "ffn.up.bias"] = (FF,)
    w[p + "ffn.down.weight"] = (D, FF)
    w[p + "ffn.down.bias"] = (D,)
    return {k: rng.normal(size=s).astype(np.float32) * 0.5 for k, s in w.items()}


def encode(value, dtype):
    a = np.ascontiguousarray(value, dtype=np.float32)
    if dtype == "F32":
        return a.astype("<f4").tobytes()
    if dtype == "F16":
        return a.astype("<f2").tobytes()
    if dtype == "BF16":  # truncation is enough for seeds
        return (a.view("<u4") >> 16).astype("<u2").tobytes()
    raise ValueError(dtype)


def file_bytes(header, data):
    text = json.dumps(header).encode() if not isinstance(header, bytes) else header
    return struct.pack("<Q", len(text)) + text + data


def pack(weights, dtypes, metadata=None, extra=None):
    """weights: name -> array; dtypes: one dtype or name -> dtype."""
    header, blobs, off = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, value in weights.items():
        dt = dtypes if isinstance(dtypes, str) else dtypes[name]
        blob = encode(value, dt)
        header[name] = {"dtype": dt, "shape": list(value.shape),
                        "data_offsets": [off, off + len(blob)]}
        blobs.append(blob)
        off += len(blob)
    for name, (dt, shape, blob) in (extra or {}).items():
        header[name] = {"dtype": dt, "shape": shape,
                        "data_offsets": [off, off + len(blob)]}
        blobs.append(blob)
        off += len(blob)
    return file_bytes(header, b"".join(blobs))


def small(name, dtype, shape, data):
    return file_bytes({name: {"dtype": dtype, "shape": shape,
                              "data_offsets": [0, len(data)]}}, data)


def safetensors_seeds():
    w = toy_weights()
    names = list(w)
    mixed = {n: ("F32", "F16", "BF16")[i % 3] for i, n in enumerate(names)}
    s = {
        "valid-f32": pack(w, "F32"),
        "valid-f16": pack(w, "F16"),
        "valid-bf16": pack(w, "BF16"),
        "valid-mixed": pack(w, mixed, metadata={"format": "pt"},
                            extra={"extra.i8": ("I8", [3], b"\x01\x02\x03"),
                                   "extra.f64": ("F64", [1], b"\0" * 8),
                                   "extra.empty": ("F32", [0, 4], b"")}),
        "empty": b"",
        "short": b"\x10\0\0",
        "header-beyond-file": struct.pack("<Q", 1000) + b"{}",
        "header-2p63": struct.pack("<Q", 1 << 63) + b"{}",
        "header-not-json": file_bytes(b"{not json", b""),
        "header-not-object": file_bytes(b"[1, 2, 3]", b""),
        "offsets-past-end": file_bytes({"a": {"dtype": "F32", "shape": [2],
                                              "data_offsets": [0, 8]}}, b"\0" * 4),
        "offsets-reversed": file_bytes({"a": {"dtype": "F32", "shape": [1],
                                              "data_offsets": [4, 0]}}, b"\0" * 4),
        "overlap": file_bytes({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                               "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}},
                              b"\0" * 12),
        "shape-overflow": file_bytes({"a": {"dtype": "F32",
                                            "shape": [1 << 32, 1 << 32, 16],
                                            "data_offsets": [0, 4]}}, b"\0" * 4),
        "shape-bytes-disagree": small("a", "F32", [3], b"\0" * 8),
        "unknown-dtype": small("a", "F17", [1], b"\0" * 4),
        "duplicate": file_bytes(b'{"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},'
                                b' "a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}',
                                b"\0"),
        "metadata-not-string": file_bytes({"__metadata__": {"k": 1}}, b""),
        "f16-specials": small("embed.norm.weight", "F16", [D],
                              struct.pack("<8H", 0x0001, 0x03ff, 0x7c00, 0xfc00,
                                          0x7e01, 0x8000, 0x3c00, 0x7bff)),
        "bf16-specials": small("embed.norm.bias", "BF16", [D],
                               struct.pack("<8H", 0x0001, 0x007f, 0x7f80, 0xff80,
                                           0x7fc1, 0x8000, 0x3f80, 0x7f7f)),
    }
    full = s["valid-f32"]
    s["truncated-mid-tensor"] = full[: len(full) - 100]
    return s


# fuzz_runtime_input encoding: flags, batch, seq_len, then lengths, tokens,
# types (one byte each; >= 0xE0 escapes to edge or raw values), embeddings.
def input_seed(flags, batch, seq_len, lengths=b"", tokens=b"", types=b"",
               embeddings=b""):
    dims = (struct.pack("<ii", batch, seq_len) if flags & 0x40
            else bytes([batch + 2, seq_len + 2]))
    return bytes([flags]) + dims + lengths + tokens + types + embeddings


def input_seeds():
    T, TY, L, E = 0x01, 0x02, 0x04, 0x20  # tokens, types, lengths, embeddings
    return {
        "one-token": input_seed(T, 1, 1, tokens=b"\x05"),
        "full-batch": input_seed(T | TY | L, 4, 16, bytes([16, 5, 0, 9]),
                                 bytes(range(64)), bytes(range(64))),
        "embeddings-given": input_seed(T | 0x20, 2, 7, tokens=bytes(range(14))),
        "lengths-out-of-range": input_seed(T | L, 2, 8, b"\x09\xe1"),
        "token-out-of-range": input_seed(T, 1, 4, b"", b"\x01\x02\xe1"),
        "token-raw": input_seed(T, 1, 2, b"", b"\x01\xf0\x00\x00\x00\x80"),
        "types-out-of-range": input_seed(T | TY, 1, 2, b"", b"\x01\x02", b"\x01\xe2"),
        "types-without-tokens": input_seed(TY, 1, 4),
        "seq-too-long": input_seed(T, 1, 17),
        "seq-zero": input_seed(T, 1, 0),
        "batch-zero": input_seed(T, 0, 4),
        "raw-extremes": input_seed(T | 0x40, 2**31 - 1, -2**31),
        "raw-huge-batch": input_seed(T | L | 0x40, 2**31 - 1, 16),
        "null-out": input_seed(T | 0x08, 1, 1),
        "null-model": input_seed(T | 0x10, 1, 1),
        "emb-full": input_seed(E | L | 0x80, 2, 3, b"\x03\x01", b"", b"",
                               bytes(range(0, 240, 5))),
        "emb-empty-sequence": input_seed(E | L | 0x80, 1, 2, b"\x00"),
        "emb-null": input_seed(T | 0x80, 1, 4),
        "emb-types-given": input_seed(E | TY | 0x80, 1, 4),
    }


def write_dir(d, seeds):
    os.makedirs(d, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    mode, out = sys.argv[1], sys.argv[2]
    if mode == "weights":
        with open(out, "wb") as f:
            f.write(pack(toy_weights(), "F32"))
    elif mode == "safetensors":
        write_dir(out, safetensors_seeds())
    elif mode == "inputs":
        write_dir(out, input_seeds())
    else:
        sys.exit(__doc__)
