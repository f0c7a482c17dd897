#!/usr/bin/env python3
"""Hostile weights files for hostile-weights.test (docs/weights.md#errors): each one
breaks the safetensors format in one way, starting from GOOD (a valid file
for `bert_like`), so that the tensor names are real ones.

usage: make_hostile_weights.py GOOD OUTDIR
"""
import json
import os
import struct
import sys

good, out = sys.argv[1], sys.argv[2]
raw = open(good, "rb").read()
(n,) = struct.unpack("<Q", raw[:8])
header = json.loads(raw[8:8 + n])
data = raw[8 + n:]
# Two tensors next to each other in the data section, for the overlap case.
by_offset = sorted((v["data_offsets"][0], k) for k, v in header.items()
                   if k != "__metadata__")
first, second = by_offset[0][1], by_offset[1][1]


def write(name, blob):
    with open(os.path.join(out, name + ".safetensors"), "wb") as f:
        f.write(blob)


def with_header(name, text, body=data):
    """A file whose header is `text` (str or bytes) followed by `body`."""
    h = text.encode() if isinstance(text, str) else text
    write(name, struct.pack("<Q", len(h)) + h + body)


def edited(name, tensor, **fields):
    """GOOD with fields of one tensor's entry replaced."""
    h = json.loads(json.dumps(header))
    h[tensor].update(fields)
    with_header(name, json.dumps(h))


write("empty", b"")
write("len-past-end", struct.pack("<Q", len(raw)) + raw[8:])
write("len-2-63", struct.pack("<Q", 1 << 63) + raw[8:])
with_header("not-json", '{"embed.tokens": {"dtype": "F32", "shape": [101')
with_header("not-object", json.dumps([header[first]]))
end = header[first]["data_offsets"][1]
edited("past-end", first, data_offsets=[len(data) - 4, len(data) + end])
b, e = header[first]["data_offsets"]
edited("reversed", first, data_offsets=[e, b])
# `second` made to start 4 bytes inside `first` (and keep its length).
b2, e2 = header[second]["data_offsets"]
edited("overlap", second, data_offsets=[b2 - 4, e2 - 4])
# 2^32 * 2^32 * 2 wraps a 64-bit element count to 0, the byte length's match.
edited("shape-overflow", first, shape=[1 << 32, 1 << 32, 2])
shape = header[first]["shape"]
edited("shape-bytes", first, shape=[shape[0] + 1] + shape[1:])
edited("unknown-dtype", first, dtype="F33")
# The same tensor name twice: JSON parsers keep the last value by default.
text = json.dumps(header)
entry = '"%s": %s' % (first, json.dumps(header[first]))
assert entry in text
with_header("duplicate", text.replace(entry, entry + ", " + entry, 1))
# Cut in the middle of the last tensor of the data section.
lb, le = header[by_offset[-1][1]]["data_offsets"]
write("truncated-mid", raw[:8 + n + (lb + le) // 2])
os.makedirs(os.path.join(out, "dir.safetensors"), exist_ok=True)
print("first tensor %s, second %s, last %s" % (first, second, by_offset[-1][1]))
