"""Minimal safetensors reader/writer (no dependency on the safetensors package).

Format (https://github.com/huggingface/safetensors):
  8 bytes   little-endian uint64 N = length of the JSON header
  N bytes   JSON object: {"__metadata__": {str: str}?, NAME: {"dtype": D,
            "shape": [...], "data_offsets": [begin, end]}, ...}; the reference
            implementation pads it with spaces so that 8 + N is a multiple of 8
  rest      raw little-endian tensor data; offsets are relative to its start

Also: rounding helpers (F16, BF16 round-to-nearest-even) and writers of
deliberately broken files for negative tests.
"""
import json
import os
import struct

import numpy as np

# dtype name -> (numpy storage dtype, bytes per element)
DTYPES = {
    "F64": (np.dtype("<f8"), 8),
    "F32": (np.dtype("<f4"), 4),
    "F16": (np.dtype("<f2"), 2),
    "BF16": (np.dtype("<u2"), 2),  # stored as raw 16-bit patterns
    "I64": (np.dtype("<i8"), 8),
    "I32": (np.dtype("<i4"), 4),
    "I16": (np.dtype("<i2"), 2),
    "I8": (np.dtype("i1"), 1),
    "U8": (np.dtype("u1"), 1),
}
FLOAT_DTYPES = ("F64", "F32", "F16", "BF16")


# --------------------------------------------------------------------------
# rounding / encoding
# --------------------------------------------------------------------------
def f32_to_bf16_bits(a):
    """float array -> uint16 bf16 bit patterns, round-to-nearest-even of the
    fp32 bits (the value is first rounded to fp32). NaN stays a quiet NaN."""
    a = np.asarray(a, dtype=np.float64)
    f = np.array(a.astype(np.float32), order="C").reshape(a.shape)
    u = f.view(np.uint32).astype(np.uint64)
    lsb = (u >> np.uint64(16)) & np.uint64(1)
    r = ((u + np.uint64(0x7FFF) + lsb) >> np.uint64(16)).astype(np.uint16)
    nan = np.isnan(f)
    if nan.any():
        r = np.where(nan, ((u >> np.uint64(16)).astype(np.uint16) | np.uint16(0x0040)), r)
    return r.astype(np.uint16)


def bf16_bits_to_f32(bits):
    b = np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)
    return b.view(np.float32)


def round_to_dtype(a, dtype):
    """The float64 value of `a` after storing it as `dtype` (F32/F16/BF16/F64)."""
    a = np.asarray(a, dtype=np.float64)
    if dtype == "F64":
        return a.copy()
    if dtype == "F32":
        return a.astype(np.float32).astype(np.float64)
    if dtype == "F16":
        # Rounded via fp32 (as encode() does, and as a producer holding fp32
        # weights would): fp64 -> fp32 -> fp16, each round-to-nearest-even.
        with np.errstate(over="ignore"):  # beyond 65504: inf, as IEEE says
            return a.astype(np.float32).astype(np.float16).astype(np.float64)
    if dtype == "BF16":
        return bf16_bits_to_f32(f32_to_bf16_bits(a)).astype(np.float64)
    raise ValueError("round_to_dtype: unsupported dtype %r" % dtype)


def encode(a, dtype):
    """Raw little-endian bytes of `a` stored as `dtype`."""
    if dtype not in DTYPES:
        raise ValueError("unknown dtype %r" % dtype)
    a = np.asarray(a)
    if dtype == "BF16":
        return np.ascontiguousarray(f32_to_bf16_bits(a)).astype("<u2").tobytes()
    if dtype == "F16":
        with np.errstate(over="ignore"):
            return np.ascontiguousarray(
                np.asarray(a, dtype=np.float64).astype(np.float32).astype("<f2")).tobytes()
    st, _ = DTYPES[dtype]
    return np.ascontiguousarray(a.astype(st)).tobytes()


def decode(buf, dtype, shape):
    st, size = DTYPES[dtype]
    n = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
    if len(buf) != n * size:
        raise ValueError("decode: %d bytes for %s%s" % (len(buf), dtype, list(shape)))
    raw = np.frombuffer(buf, dtype=st).reshape(shape)
    if dtype == "BF16":
        return bf16_bits_to_f32(raw).reshape(shape)
    return raw.astype(st.newbyteorder("=")).copy()


# --------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------
def _sort_key(item):
    # like the reference implementation: larger alignment first, then name
    name, (dt, _) = item
    return (-DTYPES[dt][1], name)


def build_header(entries, metadata=None):
    """entries: list of (name, dtype, shape, nbytes) in data order ->
    (header dict, total data size)."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    off = 0
    for name, dt, shape, nbytes in entries:
        header[name] = {"dtype": dt, "shape": [int(s) for s in shape],
                        "data_offsets": [off, off + nbytes]}
        off += nbytes
    return header, off


def header_bytes(header, align=8):
    """JSON header padded with spaces so that 8 + len is a multiple of align."""
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    if align:
        h += b" " * ((-(8 + len(h))) % align)
    return h


def assemble(header, data, header_len=None, align=8):
    """Raw file bytes from a header (dict, or bytes used verbatim) and data."""
    h = header if isinstance(header, (bytes, bytearray)) else header_bytes(header, align)
    n = len(h) if header_len is None else header_len
    return struct.pack("<Q", n) + bytes(h) + bytes(data)


def serialize(tensors, dtype="F32", metadata=None):
    """tensors: {name: array}; dtype: one name for all, or {name: dtype}.
    Returns (file bytes, {name: float64/int value as stored})."""
    items = []
    for name, a in tensors.items():
        dt = dtype[name] if isinstance(dtype, dict) else dtype
        if dt not in DTYPES:
            raise ValueError("unknown dtype %r for %s" % (dt, name))
        items.append((name, (dt, np.asarray(a))))
    items.sort(key=_sort_key)
    entries, chunks, stored = [], [], {}
    for name, (dt, a) in items:
        b = encode(a, dt)
        entries.append((name, dt, a.shape, len(b)))
        chunks.append(b)
        stored[name] = (round_to_dtype(a, dt) if dt in FLOAT_DTYPES
                        else a.astype(DTYPES[dt][0]).astype(np.int64))
    header, _ = build_header(entries, metadata)
    return assemble(header, b"".join(chunks)), stored


def write_safetensors(path, tensors, dtype="F32", metadata=None):
    """Write a file; returns {name: value as stored} (float64 for floats), so a
    reference can be computed from exactly what the loader will see."""
    raw, stored = serialize(tensors, dtype, metadata)
    with open(path, "wb") as f:
        f.write(raw)
    return stored


class SparseRows:
    """A [rows, cols] table that is zero except `values` at `row_ids`."""

    def __init__(self, rows, cols, row_ids, values):
        self.shape = (rows, cols)
        self.row_ids = np.asarray(row_ids, dtype=np.int64)
        self.values = np.asarray(values, dtype=np.float32)


def write_sparse(path, tensors, dtype="F32"):
    """safetensors with float tensors in `dtype` (F32 or BF16; SparseRows
    written as holes) and I64 arrays; I64 first, so every F32 tensor stays
    4-byte aligned."""
    items = []
    for name, a in tensors.items():
        if isinstance(a, SparseRows):
            items.append((name, dtype, a.shape, a))
        else:
            a = np.asarray(a)
            dt = "I64" if a.dtype == np.int64 else dtype
            items.append((name, dt, a.shape, a))
    items.sort(key=lambda t: (t[1] != "I64", t[0]))
    entries = [(n, dt, s, int(np.prod(s)) * DTYPES[dt][1]) for n, dt, s, _ in items]
    header, total = build_header(entries)
    h = header_bytes(header)
    with open(path, "wb") as f:
        f.write(len(h).to_bytes(8, "little") + h)
        base = f.tell()
        for (name, dt, shape, a), (_, _, _, nbytes) in zip(items, entries):
            start = base + header[name]["data_offsets"][0]
            if isinstance(a, SparseRows):
                row_bytes = shape[1] * DTYPES[dt][1]
                for r, v in zip(a.row_ids, a.values):
                    f.seek(start + int(r) * row_bytes)
                    f.write(encode(v, dt))
            else:
                f.seek(start)
                f.write(encode(a, dt))
        f.truncate(base + total)


# --------------------------------------------------------------------------
# reading (strict: used to check our own writer and the broken-file helpers)
# --------------------------------------------------------------------------
def parse(raw, what="<bytes>"):
    """-> (header dict without __metadata__, metadata or None, data bytes).
    Raises ValueError on any malformed input."""
    if len(raw) < 8:
        raise ValueError("%s: file shorter than 8 bytes" % what)
    (n,) = struct.unpack("<Q", raw[:8])
    if n > len(raw) - 8:
        raise ValueError("%s: header length %d exceeds file size %d" % (what, n, len(raw)))
    try:
        header = json.loads(raw[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ValueError("%s: malformed header: %s" % (what, e))
    if not isinstance(header, dict):
        raise ValueError("%s: header is not a JSON object" % what)
    meta = header.pop("__metadata__", None)
    if meta is not None and (not isinstance(meta, dict) or
                             not all(isinstance(v, str) for v in meta.values())):
        raise ValueError("%s: __metadata__ must map strings to strings" % what)
    data = raw[8 + n:]
    spans = []
    for name, e in header.items():
        if not isinstance(e, dict) or set(e) != {"dtype", "shape", "data_offsets"}:
            raise ValueError("%s: tensor %s: bad entry %r" % (what, name, e))
        dt, shape, offs = e["dtype"], e["shape"], e["data_offsets"]
        if dt not in DTYPES:
            raise ValueError("%s: tensor %s: unknown dtype %r" % (what, name, dt))
        if (not isinstance(shape, list) or
                not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape)):
            raise ValueError("%s: tensor %s: bad shape %r" % (what, name, shape))
        if (not isinstance(offs, list) or len(offs) != 2 or
                not all(isinstance(o, int) and not isinstance(o, bool) for o in offs)):
            raise ValueError("%s: tensor %s: bad data_offsets %r" % (what, name, offs))
        b, en = offs
        if not 0 <= b <= en <= len(data):
            raise ValueError("%s: tensor %s: offsets [%d, %d] out of bounds (data is %d bytes)"
                             % (what, name, b, en, len(data)))
        nel = 1
        for s in shape:
            nel *= s
        if en - b != nel * DTYPES[dt][1]:
            raise ValueError("%s: tensor %s: %d bytes for %s%s" % (what, name, en - b, dt, shape))
        spans.append((b, en, name))
    spans.sort()
    pos = 0
    for b, en, name in spans:
        if b < pos:
            raise ValueError("%s: tensor %s overlaps the previous tensor" % (what, name))
        if b > pos:
            raise ValueError("%s: gap before tensor %s" % (what, name))
        pos = en
    if pos != len(data):
        raise ValueError("%s: %d trailing bytes after the last tensor" % (what, len(data) - pos))
    return header, meta, data


def read_safetensors(path, as_float64=True):
    """-> ({name: array}, metadata). Floats come back as float64 when
    as_float64 (BF16/F16 exactly widened), otherwise in their own width
    (BF16 widened to float32)."""
    with open(path, "rb") as f:
        raw = f.read()
    header, meta, data = parse(raw, path)
    out = {}
    for name, e in header.items():
        b, en = e["data_offsets"]
        a = decode(data[b:en], e["dtype"], tuple(e["shape"]))
        if as_float64 and e["dtype"] in FLOAT_DTYPES:
            a = a.astype(np.float64)
        out[name] = a
    return out, meta


def read_dtypes(path):
    with open(path, "rb") as f:
        raw = f.read()
    header, _, _ = parse(raw, path)
    return {k: v["dtype"] for k, v in header.items()}


# --------------------------------------------------------------------------
# deliberately broken files
# --------------------------------------------------------------------------
def _load_raw(src):
    with open(src, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    return header, raw[8 + n:]


def _save(dst, raw):
    with open(dst, "wb") as f:
        f.write(raw)
    return dst


def mutate(src, dst, fn):
    """fn(header_dict, data_bytes) -> (header_dict, data_bytes); rewrite."""
    header, data = _load_raw(src)
    header, data = fn(header, data)
    return _save(dst, assemble(header, data))


def truncate(src, dst, remove=1, keep=None):
    """Drop the last `remove` bytes (or keep only the first `keep` bytes)."""
    with open(src, "rb") as f:
        raw = f.read()
    raw = raw[:keep] if keep is not None else raw[:max(0, len(raw) - remove)]
    return _save(dst, raw)


def set_offsets(src, dst, name, begin, end):
    def fn(h, d):
        h[name]["data_offsets"] = [begin, end]
        return h, d
    return mutate(src, dst, fn)


def shift_offsets_past_end(src, dst, name, extra=4):
    def fn(h, d):
        b, e = h[name]["data_offsets"]
        h[name]["data_offsets"] = [b + len(d) - e + extra, len(d) + extra]
        return h, d
    return mutate(src, dst, fn)


def overlap(src, dst, name, other):
    """Make `name` point at the same bytes as `other` (shapes permitting)."""
    def fn(h, d):
        h[name]["data_offsets"] = list(h[other]["data_offsets"])
        return h, d
    return mutate(src, dst, fn)


def set_dtype(src, dst, name, dtype):
    def fn(h, d):
        h[name]["dtype"] = dtype
        return h, d
    return mutate(src, dst, fn)


def set_shape(src, dst, name, shape):
    def fn(h, d):
        h[name]["shape"] = list(shape)
        return h, d
    return mutate(src, dst, fn)


def remove_tensor(src, dst, name):
    """Drop the tensor from the header and its bytes from the data."""
    def fn(h, d):
        b, e = h.pop(name)["data_offsets"]
        d = d[:b] + d[e:]
        for k, v in h.items():
            if k != "__metadata__" and v["data_offsets"][0] >= e:
                v["data_offsets"] = [v["data_offsets"][0] - (e - b), v["data_offsets"][1] - (e - b)]
        return h, d
    return mutate(src, dst, fn)


def rename_tensor(src, dst, name, new_name):
    def fn(h, d):
        h[new_name] = h.pop(name)
        return h, d
    return mutate(src, dst, fn)


def header_length(src, dst, n):
    """Keep the bytes, lie about the header length."""
    with open(src, "rb") as f:
        raw = f.read()
    return _save(dst, struct.pack("<Q", n) + raw[8:])


def raw_header(dst, header_text, data=b"", header_len=None):
    """A file whose header is `header_text` verbatim (str or bytes)."""
    h = header_text.encode("utf-8") if isinstance(header_text, str) else header_text
    return _save(dst, assemble(h, data, header_len=header_len, align=0))


BROKEN_KINDS = ("empty", "short", "truncated", "header_too_long", "bad_json",
                "not_object", "offsets_oob", "overlap", "bad_dtype", "wrong_size",
                "negative_offset")


def make_broken(src, dst, kind, name=None):
    """One broken variant of `src` per kind in BROKEN_KINDS (name: the tensor
    to damage, default the first one in data order)."""
    header, data = _load_raw(src)
    names = sorted((k for k in header if k != "__metadata__"),
                   key=lambda k: header[k]["data_offsets"][0])
    name = name or names[0]
    if kind == "empty":
        return _save(dst, b"")
    if kind == "short":
        return _save(dst, b"\x10\x00\x00")
    if kind == "truncated":
        return truncate(src, dst, remove=1)
    if kind == "header_too_long":
        with open(src, "rb") as f:
            size = len(f.read())
        return header_length(src, dst, size + 100)
    if kind == "bad_json":
        return raw_header(dst, '{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]', b"\0" * 4)
    if kind == "not_object":
        return raw_header(dst, "[1, 2, 3]")
    if kind == "offsets_oob":
        return shift_offsets_past_end(src, dst, name)
    if kind == "overlap":
        # slide a later tensor back by one element: same size, overlapping
        # its predecessor (and leaving a gap at the end)
        victim = name if name != names[0] else (names[1] if len(names) > 1 else None)
        if victim is None:
            raise ValueError("overlap needs two tensors")
        b, e = header[victim]["data_offsets"]
        k = DTYPES[header[victim]["dtype"]][1]
        return set_offsets(src, dst, victim, b - k, e - k)
    if kind == "bad_dtype":
        return set_dtype(src, dst, name, "F33")
    if kind == "wrong_size":
        shp = header[name]["shape"]
        return set_shape(src, dst, name, [shp[0] + 1] + shp[1:] if shp else [2])
    if kind == "negative_offset":
        return set_offsets(src, dst, name, -4, header[name]["data_offsets"][1])
    raise ValueError("unknown broken kind %r" % kind)
