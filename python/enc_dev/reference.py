#!/usr/bin/env python3
"""Float64 numpy reference of the .enc semantics (docs/numerics.md) and weight
layout (docs/weights.md), for any resolved spec (one encoder dict of
`encc FILE --emit=spec`).

Library:
  weight_shapes(spec)                      name -> shape, exactly per docs/weights.md
  random_weights(spec, seed, scale=1.0)    unit-scale float64 weights
  forward(spec, weights, tokens=None, token_types=None, embeddings=None,
          lengths=None)                    float64 output
  sinusoidal_table(n, d_model), rope_tables(n, d_k, base), apply_rope(...),
  alibi_slopes(heads), t5_bucket(rel, buckets, max_distance)

CLI:
  reference.py --spec-json SPEC.json [--encoder NAME] --weights W.safetensors
               --inputs IN.npz --out OUT.npy
  reference.py make-case --spec-json SPEC.json [--encoder NAME] --seed N
               --batch B --seq S [--lengths 3,5] [--dtype F32|F16|BF16]
               [--scale X] --dir OUTDIR
Run with /usr/bin/python3 (numpy only is needed here).
"""
import argparse
import json
import math
import os
import sys
from collections import OrderedDict

import numpy as np

sys.dont_write_bytecode = True  # keep the source tree clean
if not __package__:  # run as a script: make enc_dev importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from enc_dev import safetensors_io as st  # noqa: E402

# --------------------------------------------------------------------------
# spec helpers
# --------------------------------------------------------------------------
_DEFAULTS = {"d_ff": None, "blocks": 6, "max_len": 512, "vocab": 0, "type_vocab": 0,
             "positional": {"scheme": "sinusoidal"}, "norm": "post",
             "norm_type": "layernorm", "eps": 1e-5, "activation": "relu", "bias": True,
             "embed_scale": 1.0, "embed_norm": False, "final_norm": None,
             "pooling": "none", "head_dim": None, "attention_scale": None,
             "ffn": "dense", "position_offset": 0, "window": 0, "global_every": 0,
             "norm_bias": True, "first_attn_norm": True, "normalize": False,
             "precision": "fp32", "checkpoint": "enc", "output_dim": None,
             "head": "none"}


def normalize_spec(spec):
    """Fill section-4 defaults for keys a hand-written spec dict may omit
    (an `encc --emit=spec` dict has them all) and resolve positional args."""
    s = dict(spec)
    for k, v in _DEFAULTS.items():
        s.setdefault(k, v)
    if s["d_ff"] is None:
        s["d_ff"] = 4 * s["d_model"]
    if s["final_norm"] is None:
        s["final_norm"] = s["norm"] == "pre"
    if s["output_dim"] is None:
        s["output_dim"] = s["d_model"]
    head = s["head"]
    head = dict({"scheme": head} if isinstance(head, str) else head)
    if head["scheme"] == "colbert":
        head.setdefault("dim", 128)
    if head["scheme"] in ("mlm", "splade"):
        head.setdefault("activation", "gelu")
    if head["scheme"] == "dense":
        head.setdefault("dim", s["d_model"])
        head.setdefault("activation", "tanh")
        head.setdefault("bias", True)
    if head["scheme"] == "classifier":
        head.setdefault("labels", 2)
        head.setdefault("dense", True)
        head.setdefault("activation", "tanh")
        head.setdefault("scores", "none")
        head.setdefault("norm", False)
    s["head"] = head
    if s["head_dim"] is None:
        if s["d_model"] % s["heads"]:
            raise ValueError("d_model %d not divisible by heads %d" % (s["d_model"], s["heads"]))
        s["head_dim"] = s["d_model"] // s["heads"]
    s["d_k"] = s["head_dim"]
    if s["attention_scale"] is None:
        s["attention_scale"] = 1.0 / math.sqrt(s["head_dim"])
    pos = s["positional"]
    if isinstance(pos, str):
        pos = {"scheme": pos}
    pos = dict(pos)
    if pos["scheme"] == "rope":
        pos.setdefault("base", 10000.0)
        pos.setdefault("style", "halves")
        pos.setdefault("local_base", pos["base"])
    elif pos["scheme"] == "relative":
        pos.setdefault("buckets", 32)
        pos.setdefault("max_distance", 128)
        pos.setdefault("absolute", False)
    s["positional"] = pos
    return s


def learns_positions(spec):
    """Whether embed.positions is added to the embeddings: learned positions,
    or relative(absolute = true) (MPNet)."""
    pos = spec["positional"]
    return pos["scheme"] == "learned" or (pos["scheme"] == "relative"
                                          and pos.get("absolute", False))


def is_local_block(spec, n):
    """Whether block n attends within a window (docs/numerics.md: window,
    global_every)."""
    if spec["window"] <= 0:
        return False
    return not (spec["global_every"] > 0 and n % spec["global_every"] == 0)


def load_spec(path, encoder=None):
    with open(path) as f:
        doc = json.load(f)
    encs = doc["encoders"] if isinstance(doc, dict) and "encoders" in doc else (
        doc if isinstance(doc, list) else [doc])
    if encoder is None:
        if len(encs) != 1:
            raise SystemExit("%s holds %d encoders; pass --encoder (%s)" % (
                path, len(encs), ", ".join(e.get("name", "?") for e in encs)))
        return normalize_spec(encs[0])
    for e in encs:
        if e.get("name") == encoder:
            return normalize_spec(e)
    raise SystemExit("%s: no encoder named %r" % (path, encoder))


# --------------------------------------------------------------------------
# docs/weights.md: weights
# --------------------------------------------------------------------------
def _norm_names(prefix, spec):
    has_bias = spec["norm_type"] == "layernorm" and spec["norm_bias"]
    return [prefix + ".weight"] + ([prefix + ".bias"] if has_bias else [])


def weight_shapes(spec):
    """OrderedDict name -> shape tuple, exactly the tensors docs/weights.md requires."""
    s = normalize_spec(spec)
    d, dff = s["d_model"], s["d_ff"]
    hd = s["heads"] * s["d_k"]
    out = OrderedDict()
    if s["vocab"] > 0:
        out["embed.tokens"] = (s["vocab"], d)
    if s["type_vocab"] > 0:
        out["embed.types"] = (s["type_vocab"], d)
    if learns_positions(s):
        out["embed.positions"] = (s["max_len"] + s["position_offset"], d)
    if s["embed_norm"]:
        for n in _norm_names("embed.norm", s):
            out[n] = (d,)
    if s["positional"]["scheme"] == "relative":
        out["relative.bias"] = (s["positional"]["buckets"], s["heads"])
    for b in range(s["blocks"]):
        p = "blocks.%d." % b
        for m in "qkv":
            out[p + "attn.%s.weight" % m] = (hd, d)
            if s["bias"]:
                out[p + "attn.%s.bias" % m] = (hd,)
        out[p + "attn.o.weight"] = (d, hd)
        if s["bias"]:
            out[p + "attn.o.bias"] = (d,)
        norm1 = _norm_names(p + "norm1", s) if (b > 0 or s["first_attn_norm"]) else []
        for n in norm1 + _norm_names(p + "norm2", s):
            out[n] = (d,)
        out[p + "ffn.up.weight"] = (dff, d)
        if s["bias"]:
            out[p + "ffn.up.bias"] = (dff,)
        if s["ffn"] == "gated":
            out[p + "ffn.gate.weight"] = (dff, d)
            if s["bias"]:
                out[p + "ffn.gate.bias"] = (dff,)
        out[p + "ffn.down.weight"] = (d, dff)
        if s["bias"]:
            out[p + "ffn.down.bias"] = (d,)
    if s["final_norm"]:
        for n in _norm_names("final_norm", s):
            out[n] = (d,)
    if s["head"]["scheme"] == "classifier":
        if s["head"]["dense"]:
            out["head.dense.weight"] = (d, d)
            if s["bias"]:
                out["head.dense.bias"] = (d,)
        if s["head"]["norm"]:
            for n in _norm_names("head.norm", s):
                out[n] = (d,)
        out["head.out.weight"] = (s["head"]["labels"], d)
        out["head.out.bias"] = (s["head"]["labels"],)
    if s["head"]["scheme"] == "colbert":
        out["head.linear.weight"] = (s["head"]["dim"], d)
    if s["head"]["scheme"] == "dense":
        out["head.projection.weight"] = (s["head"]["dim"], d)
        if s["head"]["bias"]:
            out["head.projection.bias"] = (s["head"]["dim"],)
    if s["head"]["scheme"] in ("mlm", "splade"):
        out["head.transform.weight"] = (d, d)
        if s["bias"]:
            out["head.transform.bias"] = (d,)
        for n in _norm_names("head.transform_norm", s):
            out[n] = (d,)
        out["head.decoder.weight"] = (s["vocab"], d)
        out["head.decoder.bias"] = (s["vocab"],)
    return out


def random_weights(spec, seed=0, scale=1.0):
    """Unit-scale float64 weights: linear W ~ N(0,1)/sqrt(fan_in) * scale,
    linear biases ~ 0.1 N(0,1) * scale, norm weights 1 + 0.1 N(0,1), norm
    biases 0.1 N(0,1), tables (tokens, types, positions, relative) ~ N(0,1)."""
    rng = np.random.default_rng(seed)
    w = OrderedDict()
    for name, shape in weight_shapes(spec).items():
        z = rng.standard_normal(shape)
        if name.startswith("embed.") and not name.startswith("embed.norm"):
            w[name] = z
        elif name == "relative.bias":
            w[name] = z
        elif "norm" in name:
            w[name] = (1.0 + 0.1 * z) if name.endswith(".weight") else 0.1 * z
        elif name.endswith(".weight"):
            w[name] = z * (scale / math.sqrt(shape[1]))
        else:
            w[name] = z * (0.1 * scale)
    return w


# --------------------------------------------------------------------------
# positional pieces (exported: the compiler's constant folding is checked
# against these)
# --------------------------------------------------------------------------
def sinusoidal_table(n, d_model):
    """PE[p, i] = sin(p / 10000^(2*floor(i/2)/d_model)) for even i, cos for odd i."""
    p = np.arange(n, dtype=np.float64)[:, None]
    i = np.arange(d_model)[None, :]
    angle = p / np.power(10000.0, (2 * (i // 2)) / float(d_model))
    return np.where(i % 2 == 0, np.sin(angle), np.cos(angle))


def rope_freqs(d_k, base=10000.0):
    k = np.arange(d_k // 2, dtype=np.float64)
    return np.power(float(base), -2.0 * k / d_k)


def rope_tables(n, d_k, base=10000.0):
    """(cos, sin), each [n, d_k/2]: angle[p, k] = p * base^(-2k/d_k)."""
    ang = np.arange(n, dtype=np.float64)[:, None] * rope_freqs(d_k, base)[None, :]
    return np.cos(ang), np.sin(ang)


def apply_rope(x, base=10000.0, style="halves", positions=None):
    """Rotate the last axis (d_k) of x [..., S, d_k] by position (axis -2)."""
    x = np.asarray(x, dtype=np.float64)
    S, dk = x.shape[-2], x.shape[-1]
    if dk % 2:
        raise ValueError("rope needs an even d_k, got %d" % dk)
    if positions is None:
        cos, sin = rope_tables(S, dk, base)
    else:
        ang = np.asarray(positions, dtype=np.float64)[:, None] * rope_freqs(dk, base)[None, :]
        cos, sin = np.cos(ang), np.sin(ang)
    h = dk // 2
    if style == "halves":
        a, b = x[..., :h], x[..., h:]
    elif style == "interleaved":
        a, b = x[..., 0::2], x[..., 1::2]
    else:
        raise ValueError("unknown rope style %r" % style)
    ra = a * cos - b * sin
    rb = a * sin + b * cos
    out = np.empty_like(x)
    if style == "halves":
        out[..., :h], out[..., h:] = ra, rb
    else:
        out[..., 0::2], out[..., 1::2] = ra, rb
    return out


def alibi_slopes(heads):
    """Press et al., ALiBi reference implementation (attention_with_linear_biases,
    fairseq models/transformer.py), transcribed."""
    def get_slopes(n):
        def get_slopes_power_of_2(n):
            start = (2 ** (-2 ** -(math.log2(n) - 3)))
            ratio = start
            return [start * ratio ** i for i in range(n)]

        if math.log2(n).is_integer():
            return get_slopes_power_of_2(n)
        else:
            closest_power_of_2 = 2 ** math.floor(math.log2(n))
            return (get_slopes_power_of_2(closest_power_of_2)
                    + get_slopes(2 * closest_power_of_2)[0::2][:n - closest_power_of_2])
    return np.array(get_slopes(int(heads)), dtype=np.float64)


def alibi_bias(S, heads):
    """[heads, S, S]: -slope_h * |i - j|."""
    i = np.arange(S)
    dist = np.abs(i[:, None] - i[None, :]).astype(np.float64)
    return -alibi_slopes(heads)[:, None, None] * dist[None]


def t5_bucket(relative_position, buckets=32, max_distance=128, precision="float32"):
    """T5's _relative_position_bucket(relative_position, bidirectional=True,
    num_buckets=buckets, max_distance) (Mesh TensorFlow / HF transformers),
    transcribed. relative_position = key position - query position (j - i);
    positive offsets (key after query) use the upper half of the buckets.

    precision="float32" follows the published code, which takes the log in
    float32 (torch .float() / tf.float32) before the integer truncation; a few
    (buckets, max_distance) pairs land exactly on an integer there and
    float64 would truncate differently (see t5_fragile_offsets).
    buckets == 2 (max_exact == 0, where the published code divides by 0)
    is taken as: every distance in the one bucket of its direction."""
    rel = np.asarray(relative_position, dtype=np.int64)
    num_buckets = int(buckets)
    ret = np.zeros_like(rel)
    num_buckets //= 2
    ret += (rel > 0).astype(np.int64) * num_buckets
    n = np.abs(rel)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    if max_exact == 0:
        large = np.zeros_like(n)
    else:
        ft = np.float32 if precision == "float32" else np.float64
        with np.errstate(divide="ignore", invalid="ignore"):
            r = n.astype(ft) / ft(max_exact)
            # float32 log, correctly rounded (float64 log rounded once to
            # float32): agrees with torch's float32 log on every (buckets,
            # max_distance) pair test_reference.py sweeps, where numpy's own
            # float32 log does not.
            lg = np.log(r.astype(np.float64)).astype(ft)
            v = lg / ft(math.log(max_distance / max_exact)) * ft(num_buckets - max_exact)
            v = np.where(is_small, 0, v)  # log(0) rows are discarded below anyway
            large = max_exact + np.trunc(v).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    ret += np.where(is_small, n, large)
    return ret


def t5_fragile_offsets(buckets, max_distance, max_len):
    """Offsets in (-max_len, max_len) whose bucket differs between the float32
    evaluation of the published formula and a float64 one (empty for T5's
    32/128): there the exact value is an integer and the truncation depends on
    rounding, so a compiler evaluating in double gets a different bucket."""
    r = np.arange(-(max_len - 1), max_len)
    a = t5_bucket(r, buckets, max_distance, "float32")
    b = t5_bucket(r, buckets, max_distance, "float64")
    return r[a != b]


def relative_bias(S, table, buckets, max_distance):
    """[heads, S, S]: table[bucket(j - i), h]."""
    i = np.arange(S)
    bk = t5_bucket(i[None, :] - i[:, None], buckets, max_distance)  # [i, j]
    return np.transpose(np.asarray(table, dtype=np.float64)[bk], (2, 0, 1))


# --------------------------------------------------------------------------
# numerics
# --------------------------------------------------------------------------
_erf = np.frompyfunc(math.erf, 1, 1)


def erf(x):
    x = np.asarray(x, dtype=np.float64)
    return _erf(x).astype(np.float64)


def activation(x, kind):
    if kind == "relu":
        return np.maximum(x, 0.0)
    if kind == "gelu":
        return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))
    if kind == "gelu_tanh":
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    if kind == "silu":
        return x / (1.0 + np.exp(-x))
    if kind == "quick_gelu":
        return x / (1.0 + np.exp(-1.702 * x))
    if kind == "tanh":
        return np.tanh(x)
    raise ValueError("unknown activation %r" % kind)


def norm(x, w, prefix, spec):
    g = w[prefix + ".weight"]
    if spec["norm_type"] == "layernorm":
        mu = x.mean(axis=-1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
        y = (x - mu) / np.sqrt(var + spec["eps"]) * g
        return y + w[prefix + ".bias"] if spec["norm_bias"] else y
    if spec["norm_type"] == "rmsnorm":
        return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + spec["eps"]) * g
    raise ValueError("unknown norm_type %r" % spec["norm_type"])


def _linear(x, w, name, spec):
    y = x @ np.asarray(w[name + ".weight"], dtype=np.float64).T
    if spec["bias"]:
        y = y + w[name + ".bias"]
    return y


def attention_probs(q, k, spec, lengths, pos_bias, local):
    """Softmax probabilities [B,H,S,S] of docs/numerics.md: scaled scores plus
    the positional bias, keys j >= len[b] masked, and in a local block keys
    with |i - j| > floor(window / 2) masked; rows i >= len[b] and rows with
    no key are all zero."""
    B, H, S, _ = q.shape
    scores = np.einsum("bhid,bhjd->bhij", q, k) * spec["attention_scale"]
    if pos_bias is not None:
        scores = scores + pos_bias[None]
    ar = np.arange(S)
    key_ok = ar[None, :] < lengths[:, None]                     # [B, S(j)]
    ok = np.broadcast_to(key_ok[:, None, None, :], scores.shape)
    if local:
        near = np.abs(ar[:, None] - ar[None, :]) <= spec["window"] // 2  # [i, j]
        ok = ok & near[None, None]
    scores = np.where(ok, scores, -np.inf)
    m = scores.max(axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(scores - m)                                      # exp(-inf) = 0
    den = e.sum(axis=-1, keepdims=True)
    prob = e / np.where(den > 0, den, 1.0)                      # len 0: all zeros
    row_ok = ar[None, :] < lengths[:, None]                     # [B, S(i)]
    return np.where(row_ok[:, None, :, None], prob, 0.0)


def mha(x, w, p, spec, lengths, pos_bias, local=False, probs_out=None):
    """x [B,S,d] -> [B,S,d]. pos_bias: None or [H,S,S] added to the scores.
    local: the block attends within spec["window"]. probs_out: a list the
    block's probabilities [B,H,S,S] are appended to."""
    B, S, d = x.shape
    H, dk = spec["heads"], spec["d_k"]

    def heads(t):
        return t.reshape(B, S, H, dk).transpose(0, 2, 1, 3)  # [B,H,S,dk]

    q = heads(_linear(x, w, p + "attn.q", spec))
    k = heads(_linear(x, w, p + "attn.k", spec))
    v = heads(_linear(x, w, p + "attn.v", spec))
    pos = spec["positional"]
    if pos["scheme"] == "rope":
        base = pos["local_base"] if local else pos["base"]
        q = apply_rope(q, base, pos["style"])
        k = apply_rope(k, base, pos["style"])
    prob = attention_probs(q, k, spec, lengths, pos_bias, local)
    if probs_out is not None:
        probs_out.append(prob)
    a = np.einsum("bhij,bhjd->bhid", prob, v)
    a = a.transpose(0, 2, 1, 3).reshape(B, S, H * dk)
    return _linear(a, w, p + "attn.o", spec)


def ffn(x, w, p, spec):
    if spec["ffn"] == "gated":
        gate = activation(_linear(x, w, p + "ffn.gate", spec), spec["activation"])
        h = gate * _linear(x, w, p + "ffn.up", spec)
    elif spec["ffn"] == "dense":
        h = activation(_linear(x, w, p + "ffn.up", spec), spec["activation"])
    else:
        raise ValueError("unknown ffn %r" % spec["ffn"])
    return _linear(h, w, p + "ffn.down", spec)


def _check_weights(spec, w):
    for name, shape in weight_shapes(spec).items():
        if name not in w:
            raise KeyError("missing weight %s" % name)
        got = tuple(np.shape(w[name]))
        if name == "embed.positions":
            if len(got) != 2 or got[1] != shape[1] or got[0] < shape[0]:
                raise ValueError("weight %s has shape %s, expected %s (or more rows)"
                                 % (name, got, shape))
        elif got != shape:
            raise ValueError("weight %s has shape %s, expected %s" % (name, got, shape))


def embed(spec, w, tokens, token_types, embeddings, S):
    d = spec["d_model"]
    if spec["vocab"] > 0:
        tokens = np.asarray(tokens, dtype=np.int64)
        if tokens.ndim != 2 or (tokens < 0).any() or (tokens >= spec["vocab"]).any():
            raise ValueError("tokens must be [B,S] ids in 0..%d" % (spec["vocab"] - 1))
        x = spec["embed_scale"] * np.asarray(w["embed.tokens"], dtype=np.float64)[tokens]
        if spec["type_vocab"] > 0:
            tt = (np.zeros_like(tokens) if token_types is None
                  else np.asarray(token_types, dtype=np.int64))
            if tt.shape != tokens.shape or (tt < 0).any() or (tt >= spec["type_vocab"]).any():
                raise ValueError("token_types must be [B,S] ids in 0..%d"
                                 % (spec["type_vocab"] - 1))
            x = x + np.asarray(w["embed.types"], dtype=np.float64)[tt]
    else:
        x = np.array(embeddings, dtype=np.float64)
        if x.ndim != 3 or x.shape[2] != d:
            raise ValueError("embeddings must be [B,S,%d], got %s" % (d, x.shape))
    scheme = spec["positional"]["scheme"]
    if scheme == "sinusoidal":
        x = x + sinusoidal_table(S, d)[None]
    elif learns_positions(spec):
        o = spec["position_offset"]
        x = x + np.asarray(w["embed.positions"], dtype=np.float64)[o:o + S][None]
    if spec["embed_norm"]:
        x = norm(x, w, "embed.norm", spec)
    return x


def forward(spec, weights, tokens=None, token_types=None, embeddings=None, lengths=None,
            return_hidden=False, return_probs=False):
    """docs/numerics.md in float64. Returns [B,S,d] (pooling none) or [B,d];
    with return_probs also the attention probabilities [blocks,B,H,S,S]."""
    spec = normalize_spec(spec)
    _check_weights(spec, weights)
    w = weights
    if spec["vocab"] > 0:
        if tokens is None:
            raise ValueError("this encoder takes token ids (vocab = %d)" % spec["vocab"])
        B, S = np.shape(tokens)
    else:
        if embeddings is None:
            raise ValueError("this encoder takes float embeddings (vocab = 0)")
        B, S = np.shape(embeddings)[:2]
    if B < 1 or not 1 <= S <= spec["max_len"]:
        raise ValueError("batch %d / seq_len %d outside 1..max_len %d" % (B, S, spec["max_len"]))
    lengths = (np.full(B, S, dtype=np.int64) if lengths is None
               else np.asarray(lengths, dtype=np.int64).reshape(-1))
    if lengths.shape != (B,) or (lengths < 0).any() or (lengths > S).any():
        raise ValueError("lengths must be [B] values in 0..%d" % S)

    x = embed(spec, w, tokens, token_types, embeddings, S)
    pos = spec["positional"]
    bias = None
    if pos["scheme"] == "alibi":
        bias = alibi_bias(S, spec["heads"])
    elif pos["scheme"] == "relative":
        bias = relative_bias(S, w["relative.bias"], pos["buckets"], pos["max_distance"])
    probs = []
    for blk in range(spec["blocks"]):
        p = "blocks.%d." % blk
        local = is_local_block(spec, blk)
        attn = lambda t: mha(t, w, p, spec, lengths, bias, local, probs)  # noqa: E731
        if spec["norm"] == "post":
            h = norm(x + attn(x), w, p + "norm1", spec)
            x = norm(h + ffn(h, w, p, spec), w, p + "norm2", spec)
        elif spec["norm"] == "pre":
            n1 = x if (blk == 0 and not spec["first_attn_norm"]) else norm(x, w, p + "norm1", spec)
            h = x + attn(n1)
            x = h + ffn(norm(h, w, p + "norm2", spec), w, p, spec)
        else:
            raise ValueError("unknown norm layout %r" % spec["norm"])
    if spec["final_norm"]:
        x = norm(x, w, "final_norm", spec)
    valid = np.arange(S)[None, :] < lengths[:, None]             # [B,S]
    if spec["head"]["scheme"] in ("mlm", "splade"):
        out = mlm(x, w, spec)
        if spec["head"]["scheme"] == "splade":
            # SPLADE: log(1 + relu(logits)), the maximum over valid tokens.
            out = np.where(valid[:, :, None], np.log1p(np.maximum(out, 0.0)), 0.0)
            out = out.max(axis=1)
        else:
            out = np.where(valid[:, :, None], out, 0.0)
    else:
        out = pool(x, valid, lengths, spec["pooling"])
    if spec["head"]["scheme"] == "dense":
        # sentence-transformers' Dense: Linear, then Tanh or Identity.
        out = out @ w["head.projection.weight"].T + w.get("head.projection.bias", 0.0)
        if spec["head"]["activation"] == "tanh":
            out = np.tanh(out)
    elif spec["head"]["scheme"] == "classifier":
        out = classifier(out, w, spec)
    elif spec["head"]["scheme"] == "colbert":
        # Each valid token projected and normalised; padding stays zero.
        out = l2_normalize(out @ w["head.linear.weight"].T)
    elif spec["pooling"] != "none" and spec["head"]["scheme"] == "none":
        out = out[:, :spec["output_dim"]]  # Matryoshka: the first values
    if spec["normalize"]:
        out = l2_normalize(out)
    result = (out,)
    if return_hidden:
        result += (x,)
    if return_probs:
        result += (np.stack(probs),)
    return result[0] if len(result) == 1 else result


def mlm(x, w, spec):
    """docs/language.md#heads: [B, S, d] hidden states -> [B, S, vocab]
    logits: dense, activation, norm (the transform), then the decoder."""
    h = _linear(x, w, "head.transform", spec)
    h = norm(activation(h, spec["head"]["activation"]), w, "head.transform_norm", spec)
    return h @ w["head.decoder.weight"].T + w["head.decoder.bias"]


def classifier(p, w, spec):
    """docs/language.md#heads: [B, d] pooled vectors -> [B, labels]."""
    head = spec["head"]
    if head["dense"]:
        p = activation(p @ w["head.dense.weight"].T + w.get("head.dense.bias", 0.0),
                       head["activation"])
        if head["norm"]:
            p = norm(p, w, "head.norm", spec)
    logits = p @ w["head.out.weight"].T + w["head.out.bias"]
    if head["scores"] == "sigmoid":
        return 1.0 / (1.0 + np.exp(-logits))
    if head["scores"] == "softmax":
        e = np.exp(logits - logits.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return logits


def l2_normalize(v):
    """v / max(||v||_2, 1e-12) over the last axis (zero rows stay zero)."""
    n = np.sqrt((v * v).sum(axis=-1, keepdims=True))
    return v / np.maximum(n, 1e-12)


def pool(x, valid, lengths, mode):
    if mode == "none":
        return np.where(valid[:, :, None], x, 0.0)
    if mode == "cls":
        return np.where((lengths > 0)[:, None], x[:, 0, :], 0.0)
    if mode == "mean":
        s = np.where(valid[:, :, None], x, 0.0).sum(axis=1)
        return s / np.maximum(lengths, 1)[:, None]
    if mode == "max":
        m = np.where(valid[:, :, None], x, -np.inf).max(axis=1)
        return np.where((lengths > 0)[:, None], m, 0.0)
    if mode == "last":
        last = x[np.arange(x.shape[0]), np.maximum(lengths - 1, 0), :]
        return np.where((lengths > 0)[:, None], last, 0.0)
    raise ValueError("unknown pooling %r" % mode)


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------
def load_weights(path):
    w, _ = st.read_safetensors(path, as_float64=True)
    return w


def load_inputs(path):
    z = np.load(path)
    get = lambda k: z[k] if k in z.files else None  # noqa: E731
    return dict(tokens=get("tokens"), token_types=get("token_types"),
                embeddings=get("embeddings"), lengths=get("lengths"))


def make_case(spec, seed, batch, seq, lengths=None, dtype="F32", scale=1.0, outdir=".",
              with_types=True):
    """Write weights.safetensors, inputs.npz, *.bin, inputs.json, spec.json,
    expected.npy (float64), expected.bin (float32), expected_f64.bin.
    Returns (expected float64, stored weights, inputs dict)."""
    spec = normalize_spec(spec)
    os.makedirs(outdir, exist_ok=True)
    w = random_weights(spec, seed, scale)
    stored = st.write_safetensors(os.path.join(outdir, "weights.safetensors"), w, dtype,
                                  metadata={"format": "pt", "generator": "encc reference.py",
                                            "seed": str(seed)})
    rng = np.random.default_rng(seed + 7919)
    inputs = {}
    if spec["vocab"] > 0:
        inputs["tokens"] = rng.integers(0, spec["vocab"], size=(batch, seq)).astype(np.int32)
        if spec["type_vocab"] > 0 and with_types:
            inputs["token_types"] = rng.integers(0, spec["type_vocab"],
                                                 size=(batch, seq)).astype(np.int32)
    else:
        inputs["embeddings"] = rng.standard_normal((batch, seq, spec["d_model"])).astype(np.float32)
    if lengths is not None:
        inputs["lengths"] = np.asarray(lengths, dtype=np.int32).reshape(batch)
    np.savez(os.path.join(outdir, "inputs.npz"), **inputs)
    files = {}
    for k, a in inputs.items():
        fn = k + ".bin"
        a.astype("<f4" if a.dtype.kind == "f" else "<i4").tofile(os.path.join(outdir, fn))
        files[k] = {"file": fn, "dtype": "f32" if a.dtype.kind == "f" else "i32",
                    "shape": list(a.shape)}
    exp = forward(spec, stored, **{k: inputs.get(k) for k in
                                   ("tokens", "token_types", "embeddings", "lengths")})
    np.save(os.path.join(outdir, "expected.npy"), exp)
    exp.astype("<f4").tofile(os.path.join(outdir, "expected.bin"))
    exp.astype("<f8").tofile(os.path.join(outdir, "expected_f64.bin"))
    with open(os.path.join(outdir, "spec.json"), "w") as f:
        json.dump(spec, f, indent=2)
    info = {
        "encoder": spec.get("name"), "seed": seed, "weights_dtype": dtype,
        "batch": batch, "seq_len": seq, "d_model": spec["d_model"],
        "lengths": None if lengths is None else [int(v) for v in inputs["lengths"]],
        "inputs": files,
        "expected": {"file": "expected.bin", "dtype": "f32", "shape": list(exp.shape),
                     "f64_file": "expected_f64.bin"},
        "tolerance": "abs(out - expected) <= 1e-4 * max(1, abs(expected))",
    }
    with open(os.path.join(outdir, "inputs.json"), "w") as f:
        json.dump(info, f, indent=2)
    return exp, stored, inputs


def _parse_lengths(s):
    return None if s is None else [int(v) for v in s.split(",") if v.strip() != ""]


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "make-case":
        ap = argparse.ArgumentParser(prog="reference.py make-case")
        ap.add_argument("--spec-json", required=True)
        ap.add_argument("--encoder")
        ap.add_argument("--seed", type=int, default=0)
        ap.add_argument("--batch", type=int, required=True)
        ap.add_argument("--seq", type=int, required=True)
        ap.add_argument("--lengths")
        ap.add_argument("--dtype", default="F32", choices=["F32", "F16", "BF16"])
        ap.add_argument("--scale", type=float, default=1.0)
        ap.add_argument("--no-types", action="store_true",
                        help="do not pass token_types (they default to 0)")
        ap.add_argument("--dir", required=True)
        a = ap.parse_args(argv[1:])
        spec = load_spec(a.spec_json, a.encoder)
        lengths = _parse_lengths(a.lengths)
        if lengths is not None and len(lengths) != a.batch:
            ap.error("--lengths has %d values for batch %d" % (len(lengths), a.batch))
        exp, _, _ = make_case(spec, a.seed, a.batch, a.seq, lengths, a.dtype, a.scale, a.dir,
                              with_types=not a.no_types)
        print("wrote %s: expected %s, max |ref| %.4g" % (a.dir, list(exp.shape),
                                                       float(np.abs(exp).max())))
        return 0
    ap = argparse.ArgumentParser(prog="reference.py")
    ap.add_argument("--spec-json", required=True)
    ap.add_argument("--encoder")
    ap.add_argument("--weights", required=True)
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    spec = load_spec(a.spec_json, a.encoder)
    out = forward(spec, load_weights(a.weights), **load_inputs(a.inputs))
    np.save(a.out, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
