#!/usr/bin/env python3
"""Self-check of the numerical reference (reference.py), the safetensors I/O
(safetensors_io.py) and the torch cross-checks (torch_export.py).
Run with /usr/bin/python3; prints one line per check and a summary; exits 1 if
any check fails."""
import glob
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from enc_dev import reference as ref  # noqa: E402
from enc_dev import safetensors_io as st  # noqa: E402
from enc_dev import torch_export as te  # noqa: E402

torch.set_num_threads(1)
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
RESULTS = []   # (name, ok, detail)
CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


class Fail(Exception):
    pass


def expect(cond, msg):
    if not cond:
        raise Fail(msg)


def maxdiff(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise Fail("shape %s vs %s" % (a.shape, b.shape))
    return float(np.abs(a - b).max()) if a.size else 0.0


def spec(**kw):
    base = dict(name="t", d_model=16, heads=4, d_ff=24, blocks=2, max_len=32, vocab=0,
                type_vocab=0, positional={"scheme": "sinusoidal"}, norm="post",
                norm_type="layernorm", eps=1e-5, activation="relu", bias=True,
                embed_scale=1.0, embed_norm=False, final_norm=None, pooling="none")
    base.update(kw)
    return ref.normalize_spec(base)


def inputs_for(s, B, S, seed=0):
    rng = np.random.default_rng(seed)
    if s["vocab"] > 0:
        d = {"tokens": rng.integers(0, s["vocab"], (B, S))}
        if s["type_vocab"] > 0:
            d["token_types"] = rng.integers(0, s["type_vocab"], (B, S))
        return d
    return {"embeddings": rng.standard_normal((B, S, s["d_model"]))}


# ==========================================================================
# safetensors
# ==========================================================================
@check
def safetensors_roundtrip():
    rng = np.random.default_rng(1)
    t = {"a.weight": rng.standard_normal((3, 5)), "b": rng.standard_normal(7) * 100,
         "scalar": np.array(2.5), "empty": np.zeros((0, 4)), "c.bias": rng.standard_normal(2)}
    ints = {"ids": rng.integers(-1000, 1000, (4, 3))}
    with tempfile.TemporaryDirectory() as d:
        for dt in ("F32", "F16", "BF16", "F64"):
            p = os.path.join(d, dt + ".safetensors")
            stored = st.write_safetensors(p, dict(t, **ints), dtype=dict(
                {k: dt for k in t}, ids="I32"), metadata={"format": "pt", "k": "v"})
            raw = open(p, "rb").read()
            n = int.from_bytes(raw[:8], "little")
            expect((8 + n) % 8 == 0, "header not padded to 8: %d" % n)
            hdr_text = raw[8:8 + n].decode()
            expect(hdr_text == hdr_text.rstrip(" ") + " " * (len(hdr_text) - len(hdr_text.rstrip(" "))),
                   "padding is not spaces")
            back, meta = st.read_safetensors(p)
            expect(meta == {"format": "pt", "k": "v"}, "metadata %r" % meta)
            for k in t:
                expect(back[k].shape == t[k].shape, "%s %s shape" % (dt, k))
                expect(np.array_equal(back[k], stored[k]), "%s %s not what was stored" % (dt, k))
                tol = {"F64": 0, "F32": 1e-6, "F16": 1e-3, "BF16": 8e-3}[dt]
                expect(np.all(np.abs(back[k] - t[k]) <= tol * np.abs(t[k]) + 1e-30 * (dt == "F64")
                              + (6e-8 if dt == "F16" else 0)), "%s %s rounding" % (dt, k))
            expect(np.array_equal(back["ids"], ints["ids"]), "I32 round trip")
            expect(st.read_dtypes(p)["ids"] == "I32" and st.read_dtypes(p)["b"] == dt, "dtypes")
            # data order: wider dtype first, then name (like the reference writer)
            h = json.loads(hdr_text)
            offs = sorted((v["data_offsets"][0], k) for k, v in h.items() if k != "__metadata__")
            expect(offs[0][0] == 0, "first tensor not at 0")
    return "F32/F16/BF16/F64/I32 + metadata + padding"


@check
def bf16_f16_rounding():
    # hand-picked fp32 bit patterns -> expected bf16
    cases = {0x3F808000: 0x3F80,  # tie, even stays
             0x3F818000: 0x3F82,  # tie, odd rounds up
             0x3F808001: 0x3F81,  # above tie
             0x3F807FFF: 0x3F80,  # below tie
             0x7F7FFFFF: 0x7F80,  # max float rounds to inf
             0x80000000: 0x8000, 0x00000001: 0x0000, 0xFF800000: 0xFF80}
    f = np.array(list(cases), dtype=np.uint32).view(np.float32)
    got = st.f32_to_bf16_bits(f)
    expect([int(v) for v in got] == list(cases.values()), "bf16 patterns %s" % [hex(v) for v in got])
    expect(np.isnan(st.bf16_bits_to_f32(st.f32_to_bf16_bits(np.array([np.nan])))).all(), "NaN")
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.standard_normal(20000) * 10 ** rng.uniform(-6, 6, 20000),
                        # exact ties at random exponents
                        ((rng.integers(0, 0x7F80, 2000).astype(np.uint32)
                          | (rng.integers(0, 2, 2000).astype(np.uint32) << 15)) << 16
                         | 0x8000).view(np.float32).astype(np.float64)])
    x = x[np.isfinite(x)].astype(np.float32)
    tb = torch.from_numpy(x).to(torch.bfloat16).to(torch.float64).numpy()
    th = torch.from_numpy(x).to(torch.float16).to(torch.float64).numpy()
    expect(np.array_equal(st.round_to_dtype(x, "BF16"), tb), "BF16 != torch bfloat16")
    expect(np.array_equal(st.round_to_dtype(x, "F16"), th), "F16 != torch half")
    return "bf16 RNE == torch on %d values incl. %d ties; f16 == torch" % (x.size, 2000)


@check
def broken_files_rejected():
    with tempfile.TemporaryDirectory() as d:
        good = os.path.join(d, "good.safetensors")
        st.write_safetensors(good, {"a": np.ones((2, 3)), "b": np.arange(4.0), "c": np.ones(5)})
        st.read_safetensors(good)
        names = []
        for kind in st.BROKEN_KINDS:
            p = st.make_broken(good, os.path.join(d, kind + ".safetensors"), kind)
            try:
                st.read_safetensors(p)
            except ValueError:
                names.append(kind)
                continue
            raise Fail("broken kind %s was accepted" % kind)
        # structurally valid but missing / renamed / reshaped tensors
        p = st.remove_tensor(good, os.path.join(d, "rm.safetensors"), "b")
        w, _ = st.read_safetensors(p)
        expect(sorted(w) == ["a", "c"] and np.array_equal(w["c"], np.ones(5)), "remove_tensor")
        p = st.rename_tensor(good, os.path.join(d, "rn.safetensors"), "a", "z")
        expect(sorted(st.read_safetensors(p)[0]) == ["b", "c", "z"], "rename_tensor")
        p = st.set_shape(good, os.path.join(d, "sh.safetensors"), "a", [3, 2])
        expect(st.read_safetensors(p)[0]["a"].shape == (3, 2), "set_shape")
    return "%d kinds rejected: %s" % (len(names), ",".join(names))


# ==========================================================================
# weight names and shapes
# ==========================================================================
def encc_specs():
    encc = os.path.join(REPO, "build", "bin", "encc")
    out = []
    if not os.access(encc, os.X_OK):
        return out
    for f in sorted(glob.glob(os.path.join(REPO, "examples", "*", "*.enc"))):
        r = subprocess.run([encc, f, "--emit=spec"], capture_output=True, text=True)
        if r.returncode == 0:
            out += json.loads(r.stdout)["encoders"]
    return out


@check
def weight_shapes_rules():
    s = spec(vocab=50, type_vocab=2, positional={"scheme": "learned"}, embed_norm=True,
             norm="pre", max_len=20, d_ff=40)
    w = ref.weight_shapes(s)
    expect(w["embed.tokens"] == (50, 16) and w["embed.types"] == (2, 16), "embed tables")
    expect(w["embed.positions"] == (20, 16), "positions")
    expect(w["embed.norm.weight"] == (16,) and w["embed.norm.bias"] == (16,), "embed.norm")
    expect(w["final_norm.weight"] == (16,) and "final_norm.bias" in w, "final_norm default pre")
    expect(w["blocks.1.ffn.up.weight"] == (40, 16) and w["blocks.1.ffn.down.weight"] == (16, 40)
           and w["blocks.1.ffn.up.bias"] == (40,) and w["blocks.1.ffn.down.bias"] == (16,), "ffn")
    expect(all(w["blocks.0.attn.%s.weight" % m] == (16, 16) and w["blocks.0.attn.%s.bias" % m] == (16,)
               for m in "qkvo"), "attn")
    per_block = 8 + 4 + 4
    expect(len(w) == 2 + 1 + 2 + 2 * per_block + 2, "count %d" % len(w))
    # bias = false, rmsnorm, relative, no final norm (post)
    s = spec(bias=False, norm_type="rmsnorm", embed_norm=True, final_norm=True,
             positional={"scheme": "relative", "buckets": 8, "max_distance": 20}, heads=2)
    w = ref.weight_shapes(s)
    expect(not any(k.endswith(".bias") and k != "relative.bias" for k in w),
           "bias/rmsnorm left a .bias: %s" % [k for k in w if k.endswith(".bias")])
    expect(w["relative.bias"] == (8, 2), "relative.bias shape")
    expect("embed.norm.weight" in w and "final_norm.weight" in w, "rmsnorm weights")
    expect(len(w) == 1 + 1 + 2 * (4 + 2 + 2) + 1, "count %d" % len(w))
    w = ref.weight_shapes(spec(norm="post"))
    expect(not any(k.startswith(("final_norm", "embed.")) for k in w), "post default final_norm")
    w = ref.weight_shapes(spec(positional={"scheme": "rope"}))
    expect(not any(k.startswith(("embed", "relative")) for k in w), "rope has no tables")
    # the examples, through encc
    ex = encc_specs()
    for e in ex:
        ws = ref.weight_shapes(e)
        nb = e["blocks"]
        gated = e.get("ffn", "dense") == "gated"
        # a norm's tensors: weight, and bias for a LayerNorm with norm_bias
        nn = 2 if e["norm_type"] == "layernorm" and e.get("norm_bias", True) else 1
        per = 4 + 2 * nn + 2 + gated
        if e["bias"]:
            per += 6 + gated
        n = nb * per + (e["vocab"] > 0) + (e["type_vocab"] > 0) + (
            e["positional"]["scheme"] in ("learned", "relative"))
        n += nn * (bool(e["embed_norm"]) + bool(e["final_norm"]))
        n -= nn * (not e.get("first_attn_norm", True))  # no blocks.0.norm1
        expect(len(ws) == n, "%s: %d tensors, expected %d" % (e["name"], len(ws), n))
    # forward accepts extra rows in embed.positions and unused tensors; rejects missing/wrong
    s = spec(positional={"scheme": "learned"}, max_len=8)
    w = ref.random_weights(s, 0)
    x = inputs_for(s, 1, 8)
    y0 = ref.forward(s, w, **x)
    w2 = dict(w, **{"embed.positions": np.concatenate([w["embed.positions"], np.ones((5, 16))]),
                    "unused.tensor": np.ones(3)})
    expect(maxdiff(ref.forward(s, w2, **x), y0) == 0, "extra position rows changed the output")
    for bad in ({k: v for k, v in w.items() if k != "blocks.1.norm2.bias"},
                dict(w, **{"blocks.0.attn.q.weight": np.ones((16, 15))}),
                dict(w, **{"embed.positions": np.ones((7, 16))})):
        try:
            ref.forward(s, bad, **x)
        except (KeyError, ValueError):
            continue
        raise Fail("bad weights accepted")
    return "rules + %d example encoders via encc (%s)" % (len(ex), ",".join(e["name"] for e in ex))


# ==========================================================================
# torch.nn.TransformerEncoder
# ==========================================================================
@check
def torch_transformer_encoder():
    B, S, d, H, dff, nb = 3, 7, 16, 4, 40, 3
    lengths = [S, 3, 0]
    worst = 0.0
    notes = []
    for norm_first in (False, True):
        for act in ("relu", "gelu"):
            enc = te.make_torch_encoder(d, H, dff, nb, norm_first, act, seed=3)
            s = te.spec_for_torch(d, H, dff, nb, norm_first, act)
            w = te.export_weights(enc)
            expect(set(w) == set(ref.weight_shapes(s)), "exported names != weight_shapes")
            x = np.random.default_rng(4).standard_normal((B, S, d))
            r = ref.forward(s, w, embeddings=x, lengths=lengths)
            expect(np.isfinite(r).all(), "NaN/inf in reference")
            for fast in (False, True):
                t = te.torch_encoder_forward(enc, x, lengths, fast_path=fast)
                for b in range(B):
                    if lengths[b]:
                        worst = max(worst, maxdiff(r[b, :lengths[b]], t[b, :lengths[b]]))
                if not fast and not norm_first and act == "relu":
                    notes.append("torch len-0 row: %s" % ("NaN" if np.isnan(t[2]).any() else "finite"))
            # full-length run without a mask
            tf = te.torch_encoder_forward(enc, x, None)
            worst = max(worst, maxdiff(ref.forward(s, w, embeddings=x), tf))
            # our zeroing: rows >= len are exactly 0, len 0 is all 0
            expect(np.all(r[1, 3:] == 0) and np.all(r[2] == 0) and np.any(r[1, :3] != 0), "zeroing")
            # pooling cls / mean against torch's valid rows
            t = te.torch_encoder_forward(enc, x, lengths)
            for pooling in ("cls", "mean"):
                sp = dict(s, pooling=pooling)
                p = ref.forward(sp, w, embeddings=x, lengths=lengths)
                exp = np.zeros((B, d))
                for b in range(B):
                    if lengths[b]:
                        exp[b] = t[b, 0] if pooling == "cls" else t[b, :lengths[b]].mean(0)
                worst = max(worst, maxdiff(p, exp))
    expect(worst < 1e-10, "max |ref - torch| = %.3g" % worst)
    return "post/pre x relu/gelu, B=3 lengths %s, slow+fast path: max diff %.2g; %s" % (
        lengths, worst, "; ".join(notes))


# ==========================================================================
# independent torch formulation of every scheme
# ==========================================================================
def variant_specs():
    V = []
    for pos in ({"scheme": "none"}, {"scheme": "sinusoidal"}, {"scheme": "learned"},
                {"scheme": "rope", "base": 10000.0, "style": "halves"},
                {"scheme": "rope", "base": 500.0, "style": "interleaved"},
                {"scheme": "alibi"},
                {"scheme": "relative", "buckets": 32, "max_distance": 128},
                {"scheme": "relative", "buckets": 8, "max_distance": 10}):
        V.append(spec(positional=pos, heads=6 if pos["scheme"] == "alibi" else 4,
                      d_model=24 if pos["scheme"] == "alibi" else 16))
    V.append(spec(norm="pre", norm_type="rmsnorm", bias=False, activation="relu",
                  positional={"scheme": "relative", "buckets": 32, "max_distance": 128},
                  vocab=40, eps=1e-6))
    V.append(spec(vocab=30, type_vocab=3, positional={"scheme": "learned"}, embed_norm=True,
                  activation="gelu", eps=1e-12, pooling="cls"))
    V.append(spec(vocab=30, embed_scale=4.0, activation="gelu_tanh", norm="pre",
                  final_norm=False, pooling="mean"))
    V.append(spec(norm="post", final_norm=True, embed_norm=True, norm_type="rmsnorm",
                  positional={"scheme": "alibi"}, heads=12, d_model=24, pooling="mean"))
    V.append(spec(d_model=7, heads=1, d_ff=5, positional={"scheme": "sinusoidal"}, blocks=1))
    V.append(spec(heads=2, positional={"scheme": "rope", "base": 10000.0, "style": "interleaved"},
                  norm="pre", activation="gelu", vocab=20, type_vocab=2))
    # v2: gated FFNs, head_dim apart from d_model, attention_scale, offsets,
    # local windows, norm_bias, first_attn_norm, normalize.
    V.append(spec(ffn="gated", activation="silu", bias=False, pooling="mean", normalize=True,
                  positional={"scheme": "rope", "base": 1000.0, "style": "halves"}))
    V.append(spec(ffn="gated", activation="gelu_tanh", norm="pre", norm_type="rmsnorm",
                  bias=False, d_model=20, heads=3, head_dim=8, attention_scale=1.0,
                  positional={"scheme": "relative", "buckets": 8, "max_distance": 10}))
    V.append(spec(vocab=30, positional={"scheme": "learned"}, position_offset=2,
                  embed_norm=True, pooling="cls", normalize=True))
    V.append(spec(ffn="gated", activation="gelu", norm="pre", bias=False, norm_bias=False,
                  first_attn_norm=False, embed_norm=True, final_norm=True, window=4,
                  global_every=3, blocks=4,
                  positional={"scheme": "rope", "base": 160000.0, "local_base": 10000.0,
                              "style": "halves"}))
    V.append(spec(window=3, positional={"scheme": "alibi"}, heads=6, d_model=24))
    V.append(spec(window=6, global_every=0, activation="silu", head_dim=6, heads=2))
    return V


def shrink(e):
    """An example encoder scaled down (same schemes and switches)."""
    s = dict(e)
    s["d_model"] = s["heads"] * 4
    s["d_k"] = 4
    s["d_ff"] = 2 * s["d_model"] + 3
    s["blocks"] = 2
    s["max_len"] = 24
    if s["vocab"]:
        s["vocab"] = 37
    return ref.normalize_spec(s)


@check
def torch_independent_forward():
    worst, n = 0.0, 0
    B, S = 3, 11
    lengths = [S, 4, 0]
    for i, s in enumerate(variant_specs() + [shrink(e) for e in encc_specs()]):
        w = ref.random_weights(s, seed=10 + i)
        x = inputs_for(s, B, S, seed=20 + i)
        for L in (lengths, None):
            r = ref.forward(s, w, lengths=L, **x)
            t = te.torch_forward(s, w, lengths=L, **x)
            expect(np.isfinite(r).all(), "non-finite reference for %s" % s)
            dd = maxdiff(r, t)
            scale = max(1.0, float(np.abs(r).max()))
            if dd > 1e-10 * scale:
                raise Fail("spec %d (%s %s): max diff %.3g" % (i, s["positional"], s["norm"], dd))
            worst = max(worst, dd)
            n += 1
    return "%d spec/length combos (all schemes, rms/layer, pre/post, pooling, vocab/types, v2 settings): max diff %.2g" % (
        n, worst)


@check
def attention_probabilities():
    """The probabilities of every block against torch's: zero on padding and
    outside local windows, rows summing to 1 where a key is visible, and equal
    to nn.MultiheadAttention(need_weights=True, average_attn_weights=False) on
    a plain block."""
    worst, n, blocks = 0.0, 0, 0
    B, S = 3, 11
    lengths = np.array([S, 4, 0])
    for i, s in enumerate(variant_specs()):
        w = ref.random_weights(s, seed=40 + i)
        x = inputs_for(s, B, S, seed=50 + i)
        r, rp = ref.forward(s, w, lengths=lengths, return_probs=True, **x)
        t, tp = te.torch_forward(s, w, lengths=lengths, return_probs=True, **x)
        expect(rp.shape == (s["blocks"], B, s["heads"], S, S), "probs shape %s" % (rp.shape,))
        worst = max(worst, maxdiff(rp, tp))
        sums = rp.sum(-1)
        for b in range(B):
            expect(np.allclose(sums[:, b, :, :lengths[b]], 1.0), "rows of valid queries sum to 1")
            expect(not rp[:, b, :, lengths[b]:].any() and not rp[:, b, :, :, lengths[b]:].any(),
                   "padding rows and columns are zero")
        for blk in range(s["blocks"]):
            if ref.is_local_block(s, blk):
                ar = np.arange(S)
                far = np.abs(ar[:, None] - ar[None, :]) > s["window"] // 2
                expect(not rp[blk][:, :, far].any(), "keys outside the window are zero")
        n += 1
        blocks += s["blocks"]
    expect(worst < 1e-12, "max |ref - torch| probs = %.3g" % worst)
    # nn.MultiheadAttention's own weights on one plain block.
    s = spec(positional={"scheme": "none"}, blocks=1)
    w = ref.random_weights(s, seed=3)
    mha = torch.nn.MultiheadAttention(s["d_model"], s["heads"], batch_first=True,
                                      dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.as_tensor(np.concatenate(
            [w["blocks.0.attn.%s.weight" % m] for m in "qkv"])))
        mha.in_proj_bias.copy_(torch.as_tensor(np.concatenate(
            [w["blocks.0.attn.%s.bias" % m] for m in "qkv"])))
    x = np.random.default_rng(4).standard_normal((B, S, s["d_model"]))
    lens = np.array([S, 4, 1])
    xt = torch.as_tensor(x)
    _, tp = mha(xt, xt, xt, key_padding_mask=torch.as_tensor(np.arange(S)[None] >= lens[:, None]),
                need_weights=True, average_attn_weights=False)
    _, rp = ref.forward(s, w, embeddings=x, lengths=lens, return_probs=True)
    for b in range(B):
        worst = max(worst, maxdiff(rp[0, b, :, :lens[b]], tp[b, :, :lens[b]].detach().numpy()))
    expect(worst < 1e-12, "max |ref - nn.MultiheadAttention| = %.3g" % worst)
    return "%d specs (%d blocks) of probabilities vs torch, and nn.MultiheadAttention: max diff %.2g" % (
        n, blocks, worst)


# ==========================================================================
# positional pieces
# ==========================================================================
def seed_sinusoidal_positions(n, d_model):
    # verbatim from the seed article (positional encoding and multi-head attention)
    pos = np.arange(n)[:, None]
    i = np.arange(d_model)[None, :]
    angles = pos / (10000 ** (2 * (i // 2) / d_model))
    pe = np.zeros((n, d_model))
    pe[:, 0::2] = np.sin(angles[:, 0::2])
    pe[:, 1::2] = np.cos(angles[:, 1::2])
    return pe


@check
def sinusoidal_vs_seed():
    worst = 0.0
    for n, d in ((5, 8), (512, 512), (64, 7), (1, 1), (300, 768), (2048, 1024)):
        worst = max(worst, maxdiff(ref.sinusoidal_table(n, d), seed_sinusoidal_positions(n, d)))
    expect(worst == 0.0, "sinusoidal differs from the seed by %.3g" % worst)
    pe = ref.sinusoidal_table(3, 4)
    expect(np.allclose(pe[1], [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)], 0, 1e-15),
           "PE[1] for d_model 4")
    return "bit-identical to the seed's numpy code (incl. odd d_model), max diff %g" % worst


@check
def alibi_slopes_check():
    expect(list(ref.alibi_slopes(8)) == [2.0 ** -k for k in range(1, 9)], "8 heads")
    expect(np.allclose(ref.alibi_slopes(6), [1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 2, 1 / 8], 0, 1e-15),
           "6 heads: %s" % ref.alibi_slopes(6))
    r = 2 ** -0.5
    exp12 = [2.0 ** -k for k in range(1, 9)] + [r, r ** 3, r ** 5, r ** 7]
    expect(np.allclose(ref.alibi_slopes(12), exp12, 0, 1e-15), "12 heads: %s" % ref.alibi_slopes(12))
    worst = 0.0
    for h in range(1, 129):
        a = ref.alibi_slopes(h)
        b = te.bloom_alibi_slopes(h).numpy()
        expect(a.shape == (h,), "shape for %d heads" % h)
        worst = max(worst, float(np.max(np.abs(a - b) / b)))
    expect(worst < 1e-14, "vs BLOOM closed form: rel diff %.3g" % worst)
    b = ref.alibi_bias(5, 6)
    expect(b[4, 1, 3] == -2 / 2 and b[4, 3, 1] == -1.0 and b[0, 2, 2] == 0, "bias layout")
    return "8 -> 2^-1..2^-8; 6, 12 by hand; 1..128 heads vs BLOOM closed form rel diff %.2g" % worst


@check
def t5_bucket_check():
    # T5 defaults (32 buckets, 128): query i, key j, relative_position = j - i
    b = lambda r: int(ref.t5_bucket(r, 32, 128))  # noqa: E731
    expect([b(0), b(-1), b(1), b(-7), b(7), b(-8), b(8)] == [0, 1, 17, 7, 23, 8, 24], "small")
    expect(b(-1000) == 15 and b(1000) == 31 and b(-127) == 15 and b(127) == 31, "far")
    expect(b(-12) == 9 and b(-16) == 10 and b(-11) == 8, "log buckets %s" % [b(-11), b(-12), b(-16)])
    n, fragile = 0, []
    r = np.arange(-1100, 1101)
    configs = [(nb, md) for nb in range(4, 66, 2)
               for md in sorted({nb // 2 + 1, nb // 2 + 2, nb + 3, 2 * nb, 3 * nb + 1, 128, 1000})
               if md > nb // 2 and (nb, md) != (18, 128)] + [(18, 128), (34, 27), (38, 25), (72, 50), (96, 81), (110, 75)]
    for nb, md in configs:
        a = ref.t5_bucket(r, nb, md)
        h = te.hf_t5_relative_position_bucket(torch.from_numpy(r), True, nb, md).numpy()
        if not np.array_equal(a, h):
            raise Fail("buckets %d max_distance %d: differs from HF at %s" % (nb, md, r[a != h][:8]))
        expect(a.min() >= 0 and a.max() < nb, "range")
        f = ref.t5_fragile_offsets(nb, md, 1101)
        if len(f):
            fragile.append("%d/%d@%s" % (nb, md, ",".join(str(v) for v in f[f > 0][:3])))
        n += 1
    expect(len(ref.t5_fragile_offsets(32, 128, 4096)) == 0, "32/128 fragile")
    # bias layout: [h, i, j] = table[bucket(j - i), h], as HF compute_bias
    tab = np.random.default_rng(5).standard_normal((8, 3))
    d = maxdiff(ref.relative_bias(20, tab, 8, 10), te.hf_t5_bias(20, tab, 8, 10).numpy())
    expect(d == 0, "relative_bias layout differs from HF compute_bias")
    # buckets == 2: one bucket per direction
    expect(list(ref.t5_bucket(np.array([-3, -1, 0, 1, 5]), 2, 4)) == [0, 0, 0, 1, 1], "buckets=2")
    return ("== HF T5 bucket (torch float32) on %d configs x %d offsets; float32-vs-float64 "
            "fragile configs among them: %s" % (n, r.size, "; ".join(fragile) or "none"))


@check
def rope_check():
    rng = np.random.default_rng(6)
    worst = 0.0
    for dk, base in ((64, 10000.0), (8, 10000.0), (2, 500.0), (128, 1e6)):
        x = rng.standard_normal((2, 3, 40, dk))
        h = ref.apply_rope(x, base, "halves")
        i = ref.apply_rope(x, base, "interleaved")
        worst = max(worst, maxdiff(h, te.llama_rope(torch.from_numpy(x), base).numpy()))
        worst = max(worst, maxdiff(i, te.roformer_rope(torch.from_numpy(x), base).numpy()))
        cos, sin = ref.rope_tables(40, dk, base)
        p, k = 17, dk // 2 - 1
        expect(abs(cos[p, k] - math.cos(p * base ** (-2 * k / dk))) < 1e-12, "rope_tables")
        # position 0 is the identity; norms are preserved
        expect(maxdiff(h[..., 0, :], x[..., 0, :]) == 0, "p=0 not identity")
        expect(np.allclose(np.linalg.norm(i, axis=-1), np.linalg.norm(x, axis=-1), 0, 1e-12), "norm")
        # relative property: <R_m q, R_n k> depends only on m - n
        q, kk = rng.standard_normal(dk), rng.standard_normal(dk)
        for style in ("halves", "interleaved"):
            Q = ref.apply_rope(np.tile(q, (40, 1)), base, style)
            K = ref.apply_rope(np.tile(kk, (40, 1)), base, style)
            expect(abs(Q[10] @ K[7] - Q[33] @ K[30]) < 1e-10, "relative property %s" % style)
    # the two styles differ (for d_k > 2)
    x = rng.standard_normal((5, 8))
    expect(maxdiff(ref.apply_rope(x, 1e4, "halves"), ref.apply_rope(x, 1e4, "interleaved")) > 1e-3,
           "halves == interleaved")
    expect(worst < 1e-12, "rope vs HF/RoFormer: %.3g" % worst)
    return "halves == HF Llama rotate_half, interleaved == RoFormer: max diff %.2g" % worst


@check
def permutation_property():
    B, S = 2, 9
    perm = np.random.default_rng(7).permutation(S)
    out = []
    for pos in ("none", "sinusoidal", "learned", "rope", "alibi", "relative"):
        p = {"scheme": pos}
        if pos == "relative":
            p.update(buckets=8, max_distance=16)
        s = spec(positional=p, blocks=2)
        w = ref.random_weights(s, 8)
        x = inputs_for(s, B, S, 9)["embeddings"]
        y = ref.forward(s, w, embeddings=x)
        yp = ref.forward(s, w, embeddings=x[:, perm])
        d = maxdiff(yp, y[:, perm])
        if pos == "none":
            expect(d < 1e-12, "positional none is not permutation-equivariant: %.3g" % d)
            ym = ref.forward(dict(s, pooling="mean"), w, embeddings=x)
            ypm = ref.forward(dict(s, pooling="mean"), w, embeddings=x[:, perm])
            expect(maxdiff(ym, ypm) < 1e-12, "mean pooling not invariant")
        else:
            expect(d > 1e-3, "%s is permutation-equivariant (%.3g)" % (pos, d))
        out.append("%s %.2g" % (pos, d))
    return "max |f(Px) - P f(x)|: " + ", ".join(out)


@check
def activations_and_norms():
    x = np.linspace(-8, 8, 2001)
    tx = torch.from_numpy(x)
    d1 = maxdiff(ref.activation(x, "gelu"), torch.nn.functional.gelu(tx).numpy())
    d2 = maxdiff(ref.activation(x, "gelu_tanh"), torch.nn.functional.gelu(tx, approximate="tanh").numpy())
    d3 = maxdiff(ref.activation(x, "relu"), torch.relu(tx).numpy())
    d6 = maxdiff(ref.activation(x, "silu"), torch.nn.functional.silu(tx).numpy())
    expect(max(d1, d2, d3, d6) < 1e-15, "activations %.3g %.3g %.3g %.3g" % (d1, d2, d3, d6))
    expect(maxdiff(ref.activation(x, "gelu"), ref.activation(x, "gelu_tanh")) > 1e-4, "gelu==tanh")
    rng = np.random.default_rng(11)
    v = rng.standard_normal((4, 33)) * 3 + 1
    g, bb = rng.standard_normal(33), rng.standard_normal(33)
    s = spec(eps=1e-5)
    ln = ref.norm(v, {"n.weight": g, "n.bias": bb}, "n", s)
    d4 = maxdiff(ln, torch.nn.functional.layer_norm(torch.from_numpy(v), (33,), torch.from_numpy(g),
                                                     torch.from_numpy(bb), 1e-5).numpy())
    rms = ref.norm(v, {"n.weight": g}, "n", dict(s, norm_type="rmsnorm"))
    d5 = maxdiff(rms, v / np.sqrt((v ** 2).mean(-1, keepdims=True) + 1e-5) * g)
    expect(max(d4, d5) < 1e-13, "norms %.3g %.3g" % (d4, d5))
    return "gelu(erf)/gelu_tanh/relu/silu vs torch %.2g; layernorm vs torch %.2g" % (
        max(d1, d2, d3, d6), d4)


@check
def padding_semantics():
    s = spec(positional={"scheme": "alibi"}, blocks=2)
    w = ref.random_weights(s, 12)
    x = inputs_for(s, 3, 10, 13)["embeddings"]
    y = ref.forward(s, w, embeddings=x, lengths=[10, 4, 0])
    # a sequence only sees its valid prefix: garbage after len changes nothing
    x2 = x.copy()
    x2[1, 4:] = 1e6
    y2 = ref.forward(s, w, embeddings=x2, lengths=[10, 4, 0])
    expect(maxdiff(y, y2) == 0, "padded rows leak")
    # and equals running the prefix alone
    y3 = ref.forward(s, w, embeddings=x[1:2, :4])
    expect(maxdiff(y[1, :4], y3[0]) < 1e-13, "prefix run differs")
    with np.errstate(all="raise"):
        y0 = ref.forward(s, w, embeddings=x[:1], lengths=[0])
    expect(np.all(y0 == 0), "len 0 not zero")
    for pooling in ("cls", "mean"):
        p = ref.forward(dict(s, pooling=pooling), w, embeddings=x, lengths=[10, 4, 0])
        expect(p.shape == (3, 16) and np.all(p[2] == 0) and np.isfinite(p).all(), pooling)
        if pooling == "mean":
            expect(maxdiff(p[1], y[1, :4].mean(0)) < 1e-14, "mean")
        else:
            expect(maxdiff(p[1], y[1, 0]) == 0, "cls")
    # input validation
    for kw in (dict(embeddings=np.zeros((1, 33, 16))), dict(embeddings=x, lengths=[1, 2, 11]),
               dict(embeddings=x, lengths=[1, 2]), dict(embeddings=np.zeros((1, 5, 15)))):
        try:
            ref.forward(s, w, **kw)
        except ValueError:
            continue
        raise Fail("bad input accepted: %s" % list(kw))
    st2 = spec(vocab=10, type_vocab=2)
    w2 = ref.random_weights(st2, 1)
    for kw in (dict(tokens=[[0, 10]]), dict(tokens=[[0, -1]]), dict(tokens=[[0, 1]], token_types=[[0, 2]])):
        try:
            ref.forward(st2, w2, **kw)
        except ValueError:
            continue
        raise Fail("bad ids accepted")
    # types default to 0
    expect(maxdiff(ref.forward(st2, w2, tokens=[[3, 4]]),
                   ref.forward(st2, w2, tokens=[[3, 4]], token_types=[[0, 0]])) == 0, "types default")
    return "padded keys isolated, prefix == short run, len 0 -> zeros w/o FP warnings, validation"


# ==========================================================================
# CLI / make-case
# ==========================================================================
@check
def make_case_cli():
    py = sys.executable
    s = spec(name="cli_enc", vocab=25, type_vocab=2, positional={"scheme": "relative", "buckets": 8,
                                                                 "max_distance": 12},
             norm="pre", activation="gelu", embed_norm=True)
    other = spec(name="other", d_model=8, heads=2)
    notes = []
    with tempfile.TemporaryDirectory() as d:
        sj = os.path.join(d, "spec.json")
        with open(sj, "w") as f:
            json.dump({"file": "x.enc", "encoders": [other, s]}, f)
        prev = None
        for dt in ("F32", "F16", "BF16"):
            out = os.path.join(d, dt)
            r = subprocess.run([py, ref.__file__, "make-case", "--spec-json", sj,
                                "--encoder", "cli_enc", "--seed", "5", "--batch", "3", "--seq", "6",
                                "--lengths", "6,2,0", "--dtype", dt, "--dir", out],
                               capture_output=True, text=True)
            expect(r.returncode == 0, "make-case failed: %s" % r.stderr[-2000:])
            info = json.load(open(os.path.join(out, "inputs.json")))
            expect(info["batch"] == 3 and info["seq_len"] == 6 and info["lengths"] == [6, 2, 0], "json")
            expect(set(st.read_dtypes(os.path.join(out, "weights.safetensors")).values()) == {dt}, "dtype")
            w = ref.load_weights(os.path.join(out, "weights.safetensors"))
            raw = ref.random_weights(s, 5)
            expect(all(np.array_equal(w[k], st.round_to_dtype(raw[k], dt)) for k in raw), "rounded weights")
            exp = np.load(os.path.join(out, "expected.npy"))
            expect(exp.dtype == np.float64 and exp.shape == (3, 6, 16), "expected.npy")
            e32 = np.fromfile(os.path.join(out, "expected.bin"), dtype="<f4").reshape(exp.shape)
            e64 = np.fromfile(os.path.join(out, "expected_f64.bin"), dtype="<f8").reshape(exp.shape)
            expect(np.array_equal(e32, exp.astype(np.float32)) and np.array_equal(e64, exp), "bins")
            tok = np.fromfile(os.path.join(out, "tokens.bin"), dtype="<i4").reshape(3, 6)
            inp = ref.load_inputs(os.path.join(out, "inputs.npz"))
            expect(np.array_equal(tok, inp["tokens"]), "tokens.bin")
            expect(np.array_equal(np.fromfile(os.path.join(out, "lengths.bin"), dtype="<i4"), [6, 2, 0]),
                   "lengths.bin")
            # reference from the rounded weights (it is what was written)
            direct = ref.forward(s, w, **inp)
            expect(maxdiff(direct, exp) == 0, "expected != forward(stored weights)")
            unrounded = ref.forward(s, raw, **inp)
            notes.append("%s vs unrounded %.2g" % (dt, maxdiff(unrounded, exp)))
            if dt != "F32":
                expect(maxdiff(unrounded, exp) > 1e-6, "%s rounding had no effect" % dt)
            # the evaluation CLI reproduces it
            o = os.path.join(out, "again.npy")
            r = subprocess.run([py, ref.__file__, "--spec-json", sj, "--encoder",
                                "cli_enc", "--weights", os.path.join(out, "weights.safetensors"),
                                "--inputs", os.path.join(out, "inputs.npz"), "--out", o],
                               capture_output=True, text=True)
            expect(r.returncode == 0, "eval CLI failed: %s" % r.stderr[-2000:])
            expect(np.array_equal(np.load(o), exp), "CLI output differs")
        # float-input encoder, no lengths
        out = os.path.join(d, "emb")
        r = subprocess.run([py, ref.__file__, "make-case", "--spec-json", sj,
                            "--encoder", "other", "--batch", "2", "--seq", "5", "--dir", out],
                           capture_output=True, text=True)
        expect(r.returncode == 0, r.stderr[-2000:])
        info = json.load(open(os.path.join(out, "inputs.json")))
        expect(info["lengths"] is None and not os.path.exists(os.path.join(out, "lengths.bin")), "no lengths")
        emb = np.fromfile(os.path.join(out, "embeddings.bin"), dtype="<f4").reshape(2, 5, 8)
        expect(np.array_equal(emb, np.load(os.path.join(out, "inputs.npz"))["embeddings"]), "embeddings.bin")
    return "make-case F32/F16/BF16 + eval CLI round trip; effect of rounding: " + ", ".join(notes)


def main():
    t0 = time.time()
    failed = 0
    for fn in CHECKS:
        t = time.time()
        try:
            detail = fn()
            ok = True
        except Exception as e:  # noqa: BLE001
            ok = False
            detail = "%s: %s" % (type(e).__name__, e)
            if not isinstance(e, Fail):
                detail += "\n" + traceback.format_exc()
        failed += not ok
        print("%s %-28s %5.2fs  %s" % ("PASS" if ok else "FAIL", fn.__name__, time.time() - t, detail))
        sys.stdout.flush()
    print("summary: %d checks, %d passed, %d failed, %.1fs" % (len(CHECKS), len(CHECKS) - failed,
                                                             failed, time.time() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
