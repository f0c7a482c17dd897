#!/usr/bin/python3
"""PyTorch side of bench/e2e.py (run with /usr/bin/python3).

  torch_runner.py serve SPEC.json WEIGHTS.safetensors THREADS
      Long-lived: builds torch.nn.TransformerEncoder (batch_first, eval, fp32)
      with the weights of docs/weights.md, sinusoidal positions added to the input, and
      answers the same stdin protocol as encc_runner.cpp:
        case B S INPUT.f32 LENGTHS.i32|- [OUT.f32|-] -> "ok FASTPATH" (1 when
             the fused fast path _transformer_encoder_layer_fwd ran)
        run N  -> "times T1..TN cpu CPU_S wall WALL_S"
        quit
      Everything runs under torch.inference_mode(), so the fast path is taken.
      With a spec nn.TransformerEncoder cannot express (the v2 settings),
      FamilyEncoder: the same formulas in plain torch ops.
  torch_runner.py export SPEC.json WEIGHTS.safetensors OUT.onnx
      torch.onnx.export of the same module (traced on the plain path, dynamic
      batch and sequence axes; inputs x [B,S,d] float32 and mask [B,S] bool,
      True = padding, as src_key_padding_mask).
"""
import json
import math
import os
import resource
import sys
import time
import warnings

import numpy as np
import torch

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from enc_dev import reference  # noqa: E402
from enc_dev.torch_export import LAYER_NAMES  # noqa: E402
from enc_dev import safetensors_io  # noqa: E402


class Encoder(torch.nn.Module):
    """x + PE (docs/numerics.md's interleaved sinusoidal table) -> TransformerEncoder."""

    def __init__(self, spec):
        super().__init__()
        s = reference.normalize_spec(spec)
        if (s["vocab"] or s["positional"]["scheme"] != "sinusoidal" or s["norm_type"] != "layernorm"
                or not s["bias"] or s["embed_norm"] or s["pooling"] != "none"
                or s["activation"] not in ("relu", "gelu") or s["embed_scale"] != 1.0
                or s["final_norm"] != (s["norm"] == "pre")):
            raise SystemExit("torch_runner: %s is not expressible as nn.TransformerEncoder" % s["name"])
        d = s["d_model"]
        layer = torch.nn.TransformerEncoderLayer(
            d, s["heads"], dim_feedforward=s["d_ff"], dropout=0.0, activation=s["activation"],
            layer_norm_eps=s["eps"], batch_first=True, norm_first=s["norm"] == "pre")
        final = torch.nn.LayerNorm(d, eps=s["eps"]) if s["final_norm"] else None
        self.encoder = torch.nn.TransformerEncoder(layer, s["blocks"], norm=final)
        pe = reference.sinusoidal_table(s["max_len"], d).astype(np.float32)
        self.register_buffer("pe", torch.from_numpy(pe))
        self.spec = s

    def forward(self, x, mask=None):
        return self.encoder(x + self.pe[: x.shape[1]], src_key_padding_mask=mask)


MASKED = -1e9


class FamilyEncoder(torch.nn.Module):
    """The v2 settings nn.TransformerEncoder has no form for (a gated FFN,
    RoPE with a local base, relative biases and learned positions (MPNet),
    local windows, norms without beta, no biases,
    head_dim, attention_scale), written out in plain torch ops so that the
    ONNX export traces them: docs/numerics.md's formulas on float embeddings,
    pooling none. Weights keep their docs/weights.md names."""

    def __init__(self, spec):
        super().__init__()
        s = reference.normalize_spec(spec)
        scheme = s["positional"]["scheme"]
        if (s["vocab"] or scheme not in ("none", "sinusoidal", "rope", "relative", "learned")
                or s["pooling"] != "none"
                or s["normalize"] or s["embed_scale"] != 1.0
                or (scheme == "rope" and s["positional"].get("style", "halves") != "halves")):
            raise SystemExit("torch_runner: FamilyEncoder does not compute %s" % s["name"])
        self.spec = s
        self.w = torch.nn.ParameterDict()
        for name, shape in reference.weight_shapes(s).items():
            self.w[name.replace(".", "__")] = torch.nn.Parameter(torch.zeros(shape))
        S, d, dk = s["max_len"], s["d_model"], s["head_dim"]
        if scheme == "sinusoidal":
            self.register_buffer("pe", torch.from_numpy(
                reference.sinusoidal_table(S, d).astype(np.float32)))
        if scheme == "rope":
            for tag, base in (("", s["positional"]["base"]),
                              ("local_", s["positional"].get("local_base",
                                                            s["positional"]["base"]))):
                cos, sin = reference.rope_tables(S, dk, base)
                self.register_buffer(tag + "cos", torch.from_numpy(cos.astype(np.float32)))
                self.register_buffer(tag + "sin", torch.from_numpy(sin.astype(np.float32)))
        if scheme == "relative":
            # T5's (and MPNet's) bucket of each offset j - i: the bias table
            # is gathered through it.
            i = np.arange(S)
            self.register_buffer("rel_bucket", torch.from_numpy(reference.t5_bucket(
                i[None, :] - i[:, None], s["positional"]["buckets"],
                s["positional"]["max_distance"]).astype(np.int64)))
        self.register_buffer("zero_beta", torch.zeros(d))
        i = torch.arange(S)
        half = s["window"] // 2
        # 0 inside the window, -1e9 outside: added to a local block's scores.
        # Masks are -1e9, not -inf: a padding row past every valid key's
        # window would otherwise be NaN, and 0 * NaN in P V would reach the
        # valid rows; exp(-1e9 - max) is exactly 0 for them anyway.
        self.register_buffer("band", torch.where((i[:, None] - i[None, :]).abs() <= half,
                                                 0.0, MASKED))

    def p(self, name):
        key = name.replace(".", "__")
        return self.w[key] if key in self.w else None

    def norm(self, x, prefix):
        if self.spec["norm_type"] == "rmsnorm":
            return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + self.spec["eps"]) * \
                self.p(prefix + ".weight")
        # Without beta (norm_bias = false) a zero beta: onnxruntime-node 1.x
        # crashes loading a LayerNormalization without its B input.
        beta = self.p(prefix + ".bias")
        return torch.nn.functional.layer_norm(x, (self.spec["d_model"],), self.p(prefix + ".weight"),
                                              self.zero_beta if beta is None else beta,
                                              self.spec["eps"])

    def linear(self, x, prefix):
        return torch.nn.functional.linear(x, self.p(prefix + ".weight"), self.p(prefix + ".bias"))

    def act(self, x):
        a = self.spec["activation"]
        if a == "relu":
            return torch.relu(x)
        if a == "silu":
            return torch.nn.functional.silu(x)
        return torch.nn.functional.gelu(x, approximate="tanh" if a == "gelu_tanh" else "none")

    def rope(self, t, local):
        S = t.shape[2]
        tag = "local_" if local else ""
        cos, sin = getattr(self, tag + "cos")[:S], getattr(self, tag + "sin")[:S]
        h = t.shape[-1] // 2
        a, b = t[..., :h], t[..., h:]
        return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)

    def attention(self, x, blk, mask, local):
        s = self.spec
        B, S, _ = x.shape
        H, dk = s["heads"], s["head_dim"]

        def heads(t):
            return t.reshape(B, S, H, dk).transpose(1, 2)
        q = heads(self.linear(x, blk + "attn.q"))
        k = heads(self.linear(x, blk + "attn.k"))
        v = heads(self.linear(x, blk + "attn.v"))
        if s["positional"]["scheme"] == "rope":
            q, k = self.rope(q, local), self.rope(k, local)
        score = torch.matmul(q, k.transpose(-1, -2)) * s["attention_scale"]
        if s["positional"]["scheme"] == "relative":
            score = score + self.p("relative.bias")[self.rel_bucket[:S, :S]].permute(2, 0, 1)
        if local:
            score = score + self.band[:S, :S]
        if mask is not None:
            score = score.masked_fill(mask[:, None, None, :], MASKED)
        a = torch.matmul(torch.softmax(score, -1), v)
        return self.linear(a.transpose(1, 2).reshape(B, S, H * dk), blk + "attn.o")

    def ffn(self, x, blk):
        if self.spec["ffn"] == "gated":
            h = self.act(self.linear(x, blk + "ffn.gate")) * self.linear(x, blk + "ffn.up")
        else:
            h = self.act(self.linear(x, blk + "ffn.up"))
        return self.linear(h, blk + "ffn.down")

    def forward(self, x, mask=None):
        s = self.spec
        if s["positional"]["scheme"] == "sinusoidal":
            x = x + self.pe[: x.shape[1]]
        elif reference.learns_positions(s):
            o = s["position_offset"]
            x = x + self.p("embed.positions")[o:o + x.shape[1]]
        if s["embed_norm"]:
            x = self.norm(x, "embed.norm")
        for n in range(s["blocks"]):
            blk = "blocks.%d." % n
            local = reference.is_local_block(s, n)
            if s["norm"] == "post":
                h = self.norm(x + self.attention(x, blk, mask, local), blk + "norm1")
                x = self.norm(h + self.ffn(h, blk), blk + "norm2")
            else:
                a_in = x if n == 0 and not s["first_attn_norm"] else self.norm(x, blk + "norm1")
                h = x + self.attention(a_in, blk, mask, local)
                x = h + self.ffn(self.norm(h, blk + "norm2"), blk)
        if s["final_norm"]:
            x = self.norm(x, "final_norm")
        if mask is not None:
            x = x.masked_fill(mask[:, :, None], 0.0)
        return x


def transformer_encoder_expressible(spec):
    s = reference.normalize_spec(spec)
    return not (s["vocab"] or s["positional"]["scheme"] != "sinusoidal"
                or s["norm_type"] != "layernorm" or not s["bias"] or s["embed_norm"]
                or s["pooling"] != "none" or s["activation"] not in ("relu", "gelu")
                or s["embed_scale"] != 1.0 or s["final_norm"] != (s["norm"] == "pre")
                or s["ffn"] != "dense" or s["head_dim"] * s["heads"] != s["d_model"]
                or abs(s["attention_scale"] * math.sqrt(s["head_dim"]) - 1) > 1e-6
                or s["window"] or not s["norm_bias"] or s["normalize"])


def load_family_weights(module, path):
    w, _ = safetensors_io.read_safetensors(path, as_float64=False)
    sd = {k: v for k, v in module.state_dict().items() if not k.startswith("w.")}
    for name in reference.weight_shapes(module.spec):
        sd["w." + name.replace(".", "__")] = torch.from_numpy(
            np.ascontiguousarray(w[name], dtype=np.float32))
    module.load_state_dict(sd, strict=True)
    module.eval()
    return module


def load_weights(module, path):
    """weight names (docs/weights.md) -> the TransformerEncoder's parameters
    (the inverse of python/enc_dev/torch_export.export_weights)."""
    w, _ = safetensors_io.read_safetensors(path, as_float64=False)
    t = {k: torch.from_numpy(np.ascontiguousarray(v, dtype=np.float32)) for k, v in w.items()}
    sd = {"pe": module.pe}
    for i in range(module.spec["blocks"]):
        p, q = "blocks.%d." % i, "encoder.layers.%d." % i
        sd[q + "self_attn.in_proj_weight"] = torch.cat([t[p + "attn.%s.weight" % m] for m in "qkv"])
        sd[q + "self_attn.in_proj_bias"] = torch.cat([t[p + "attn.%s.bias" % m] for m in "qkv"])
        for enc_name, torch_name in LAYER_NAMES:
            sd[q + torch_name] = t[p + enc_name]
    if module.spec["final_norm"]:
        sd["encoder.norm.weight"] = t["final_norm.weight"]
        sd["encoder.norm.bias"] = t["final_norm.bias"]
    module.load_state_dict(sd, strict=True)
    module.eval()
    return module


def build(spec_path, weights_path):
    with open(spec_path) as f:
        spec = json.load(f)
    if "encoders" in spec:
        spec = spec["encoders"][0]
    if transformer_encoder_expressible(spec):
        return load_weights(Encoder(spec), weights_path)
    return load_family_weights(FamilyEncoder(spec), weights_path)


def cpu_seconds():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def serve(spec_path, weights_path, threads):
    warnings.filterwarnings("ignore", message=".*nested tensors is in prototype.*")
    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    t0 = time.perf_counter()
    module = build(spec_path, weights_path)
    print("loaded %.3f %d" % (1e3 * (time.perf_counter() - t0), torch.get_num_threads()), flush=True)
    d = module.spec["d_model"]
    x = mask = None
    with torch.inference_mode():
        for line in sys.stdin:
            a = line.split()
            if not a:
                continue
            if a[0] == "case":
                b, s = int(a[1]), int(a[2])
                x = torch.from_numpy(np.fromfile(a[3], dtype="<f4").reshape(b, s, d))
                mask = None
                if a[4] != "-":
                    lens = torch.from_numpy(np.fromfile(a[4], dtype="<i4").astype(np.int64))
                    mask = torch.arange(s)[None, :] >= lens[:, None]
                with torch.autograd.profiler.profile() as prof:
                    y = module(x, mask)
                fast = int(any("_transformer_encoder_layer_fwd" in e.name
                               for e in prof.function_events))
                if len(a) > 5 and a[5] != "-":
                    if y.is_nested:
                        y = y.to_padded_tensor(0.0, (b, s, d))
                    y.contiguous().numpy().astype("<f4").tofile(a[5])
                print("ok %d" % fast, flush=True)
            elif a[0] == "run":
                n = int(a[1])
                ms = []
                c0, w0 = cpu_seconds(), time.perf_counter()
                for _ in range(n):
                    t = time.perf_counter()
                    module(x, mask)
                    ms.append(1e3 * (time.perf_counter() - t))
                wall, cpu = time.perf_counter() - w0, cpu_seconds() - c0
                print("times " + " ".join("%.6f" % v for v in ms) + " cpu %.6f wall %.6f" % (cpu, wall),
                      flush=True)
            elif a[0] == "quit":
                break
            else:
                raise SystemExit("torch_runner: unknown command %r" % a[0])


def export(spec_path, weights_path, out_path):
    module = build(spec_path, weights_path)
    d = module.spec["d_model"]
    s = min(16, module.spec["max_len"])
    x = torch.randn(2, s, d)
    mask = torch.zeros(2, s, dtype=torch.bool)
    mask[1, s // 2:] = True
    # Autograd on keeps the layers off their fused fast path (which has no
    # ONNX symbolic): the plain formulas are traced.
    for p in module.parameters():
        p.requires_grad_(True)
    with torch.enable_grad():
        kw = dict(input_names=["x", "mask"], output_names=["y"],
                  dynamic_axes={"x": {0: "batch", 1: "seq"}, "mask": {0: "batch", 1: "seq"},
                                "y": {0: "batch", 1: "seq"}},
                  do_constant_folding=True)
        try:
            torch.onnx.export(module, (x, mask), out_path, opset_version=17, **kw)
        except Exception as e:  # older exporters: opset 14 has everything but LayerNormalization
            print("torch_runner: opset 17 export failed (%s); using 14" % e, file=sys.stderr)
            torch.onnx.export(module, (x, mask), out_path, opset_version=14, **kw)


def main(argv):
    if len(argv) == 5 and argv[1] == "serve":
        serve(argv[2], argv[3], int(argv[4]))
    elif len(argv) == 5 and argv[1] == "export":
        export(argv[2], argv[3], argv[4])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
