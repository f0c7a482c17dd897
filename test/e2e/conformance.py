#!/usr/bin/env python3
"""End-to-end conformance: encc-compiled encoders against PyTorch and a
float64 evaluation of docs/numerics.md.

For every case: compile the encoder with encc, link it with the runtime,
load a safetensors file, run a batch (with padding where it matters) and
compare every output element with the reference under the tolerance of
docs/numerics.md#accuracy, |out - ref| <= 1e-4 * max(1, |ref|). Prints one line per case with
the worst error seen, and exits non-zero if any case fails.

usage: conformance.py WORKDIR   (environment as in encc_case.py)
"""
import json
import os
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import encc_case as ec  # noqa: E402
from enc_dev import reference  # noqa: E402
from enc_dev import safetensors_io as st  # noqa: E402

ENC = os.path.join(HERE, "Inputs", "conformance.enc")
results = []


def report(name, abs_err, rel_err, ok, note=""):
    results.append(ok)
    print("%-4s %-40s max|err| %.3g  max err/max(1,|ref|) %.3g %s" % (
        "ok" if ok else "FAIL", name, abs_err, rel_err, note), flush=True)


def reference_case(name, encoder, torch=False, **kw):
    """encc against the float64 reference; with torch, the same output
    against torch_export.torch_forward too (PyTorch's own F.silu, F.gelu,
    F.layer_norm, F.normalize, softmax with a window mask, ... on the same
    weights), reported as its own line."""
    r = ec.conformance_case(name, ENC, encoder, WORK, **kw)
    report(name, r["abs"], r["rel"], r["ok"], "(max |ref| %.3g)" % r["max_ref"])
    if torch:
        from enc_dev import torch_export as te
        t = te.torch_forward(r["spec"], r["weights"], **{
            k: r["inputs"].get(k) for k in ("tokens", "token_types", "embeddings", "lengths")})
        a, rel, ok = ec.compare(r["out"], t)
        report("torch " + name, a, rel, ok, "(vs torch_forward)")
    return r


def torch_case(encoder, norm_first, activation):
    """torch.nn.TransformerEncoder's own output, its weights exported to the
    names of docs/weights.md, sinusoidal positions added to its input.
    `activation` is what TransformerEncoderLayer takes: a name, or a
    function such as F.silu."""
    from enc_dev import torch_export as te
    spec = ec.spec_of(ENC, encoder)
    d, H, F, N = spec["d_model"], spec["heads"], spec["d_ff"], spec["blocks"]
    enc = te.make_torch_encoder(d, H, F, N, norm_first, activation, seed=5)
    w = te.export_weights(enc)
    casedir = os.path.join(WORK, encoder)
    os.makedirs(casedir, exist_ok=True)
    st.write_safetensors(os.path.join(casedir, "weights.safetensors"), w, "F32")
    # The torch model runs in float64 on the same fp32-rounded weights.
    with __import__("torch").no_grad():
        for p in enc.parameters():
            p.copy_(p.float().double())
    B, S = 3, 9
    lengths = np.array([S, 4, 0], dtype=np.int32)
    x = np.random.default_rng(6).standard_normal((B, S, d)).astype(np.float32)
    x.tofile(os.path.join(casedir, "embeddings.bin"))
    lengths.tofile(os.path.join(casedir, "lengths.bin"))
    exe = ec.build_model(ENC, encoder, os.path.join(WORK, encoder + ".build"))
    out = ec.run_model(exe, casedir, {"batch": B, "seq": S, "files": {
        "embeddings": "embeddings.bin", "lengths": "lengths.bin"}}, spec, B * S * d)
    out = out.reshape(B, S, d)
    t = te.torch_encoder_forward(enc, x.astype(np.float64), lengths)
    worst_abs = worst_rel = 0.0
    ok = True
    for b in range(B):
        n = lengths[b]
        if n:
            a, r, o = ec.compare(out[b, :n], t[b, :n])
            worst_abs, worst_rel, ok = max(worst_abs, a), max(worst_rel, r), ok and o
        ok = ok and bool(np.all(out[b, n:] == 0))  # padding rows are zero
    report("torch %s" % encoder, worst_abs, worst_rel, ok, "(vs torch, lengths 9,4,0)")


def permutation_case(encoder, expect_equivariant):
    """The seed article's point: without positions, permuting the tokens
    permutes the output rows; with them it does not."""
    r = ec.conformance_case("perm_" + encoder, ENC, encoder, WORK, batch=1, seq=6)
    perm = np.array([3, 0, 5, 1, 4, 2])
    spec = r["spec"]
    casedir = os.path.join(WORK, "perm_" + encoder + ".permuted")
    os.makedirs(casedir, exist_ok=True)
    os.link(os.path.join(r["casedir"], "weights.safetensors"),
            os.path.join(casedir, "weights.safetensors"))
    files = {}
    for key in ("embeddings", "tokens"):
        if key in r["inputs"]:
            r["inputs"][key][:, perm].tofile(os.path.join(casedir, key + ".bin"))
            files[key] = key + ".bin"
    d = spec["d_model"]
    out = ec.run_model(r["exe"], casedir, {"batch": 1, "seq": 6, "files": files},
                       spec, 6 * d).reshape(6, d)
    orig = r["out"].reshape(6, d)
    diff = float(np.abs(out - orig[perm]).max())
    ok = r["ok"] and ((diff < 1e-5) if expect_equivariant else (diff > 1e-2))
    report("permutation %s" % encoder, diff, diff, ok,
           "(rows %s)" % ("permute with the tokens" if expect_equivariant
                          else "do not just permute"))


def out_over_input_case(encoder):
    """An encoder that returns its hidden states computes them in `out`
    (docs/c-abi.md#memory). `out` may be the input embeddings' own array (an
    in-place forward, as exact as a separate one), but an `out` that
    overlaps them one row in is refused with ENC_ERR_INPUT."""
    r = ec.conformance_case("overlap_" + encoder, ENC, encoder, WORK, batch=2, seq=5,
                            lengths=[5, 2])
    files = json.load(open(os.path.join(r["casedir"], "inputs.json")))["inputs"]
    d = r["spec"]["d_model"]
    out_path = os.path.join(r["casedir"], "overlap.bin")

    def harness(offset):
        args = [r["exe"], "--weights", os.path.join(r["casedir"], "weights.safetensors"),
                "--batch", "2", "--seq", "5", "--out-floats", str(r["expected"].size),
                "--out", out_path, "--out-over-input", str(offset)]
        for key, flag in (("embeddings", "--embeddings"), ("lengths", "--lengths")):
            args += [flag, os.path.join(r["casedir"], files[key]["file"])]
        return subprocess.run(args, capture_output=True, text=True)

    p = harness(0)
    same = p.returncode == 0 and np.array_equal(np.fromfile(out_path, dtype="<f4"), r["out"])
    report("in place (out is the embeddings) " + encoder, 0.0, 0.0, r["ok"] and same,
           "(exit %d, %s the separate out's bits)" % (p.returncode,
                                                      "same as" if same else "NOT"))
    p = harness(d)
    ok = p.returncode == 3 and "out overlaps the input embeddings" in p.stderr
    results.append(ok)
    print("%-4s out one row into the input embeddings refused (%s): exit %d: %s" % (
        "ok" if ok else "FAIL", encoder, p.returncode, p.stderr.strip()), flush=True)


def lengths_in_out_case(encoder):
    """An encoder that computes its hidden states in `out` reads the lengths
    in every layer after it starts writing `out`: lengths inside `out` are
    refused with ENC_ERR_INPUT, naming them, before anything is written."""
    r = ec.conformance_case("lengths_in_out_" + encoder, ENC, encoder, WORK, batch=2, seq=5,
                            lengths=[5, 2])
    files = json.load(open(os.path.join(r["casedir"], "inputs.json")))["inputs"]
    args = [r["exe"], "--weights", os.path.join(r["casedir"], "weights.safetensors"),
            "--batch", "2", "--seq", "5", "--out-floats", str(r["expected"].size),
            "--out", os.path.join(r["casedir"], "lengths_in_out.bin"), "--lengths-in-out", "1"]
    for key, flag in (("embeddings", "--embeddings"), ("tokens", "--tokens"),
                      ("token_types", "--types"), ("lengths", "--lengths")):
        if key in files:
            args += [flag, os.path.join(r["casedir"], files[key]["file"])]
    p = subprocess.run(args, capture_output=True, text=True)
    ok = r["ok"] and p.returncode == 3 and "out overlaps lengths" in p.stderr
    results.append(ok)
    print("%-4s lengths inside out refused (%s): exit %d: %s" % (
        "ok" if ok else "FAIL", encoder, p.returncode, p.stderr.strip()), flush=True)


def main():
    global WORK
    WORK = sys.argv[1]
    os.makedirs(WORK, exist_ok=True)
    torch_case("torch_post_relu", False, "relu")
    torch_case("torch_pre_gelu", True, "gelu")
    torch_case("silu_pre", True, __import__("torch").nn.functional.silu)
    torch_case("quick_gelu_pre", True, lambda t: t * __import__("torch").sigmoid(1.702 * t))
    reference_case("torch_post_relu", "torch_post_relu", batch=3, seq=9, lengths=[9, 4, 0])
    reference_case("bert_like types+embed_norm", "bert_like", batch=2, seq=11, lengths=[11, 5])
    reference_case("bert_like no types", "bert_like", batch=2, seq=5, with_types=False)
    reference_case("bert_cls", "bert_cls", batch=3, seq=7, lengths=[7, 2, 0])
    reference_case("bert_mean", "bert_mean", batch=3, seq=7, lengths=[7, 2, 0])
    reference_case("rope halves", "rope_halves", batch=2, seq=13, lengths=[13, 6])
    reference_case("rope interleaved", "rope_interleaved", batch=2, seq=13, lengths=[13, 1])
    reference_case("alibi 6 heads", "alibi6", batch=2, seq=10, lengths=[10, 7])
    reference_case("alibi 12 heads", "alibi12", batch=2, seq=10, lengths=[10, 7])
    reference_case("relative 32/128", "relative", batch=2, seq=40, lengths=[40, 17])
    reference_case("t5_like rmsnorm pre no-bias", "t5_like", batch=2, seq=25, lengths=[25, 9])
    reference_case("embed_scale gelu_tanh final_norm", "scaled_gelu_tanh", batch=2, seq=8)
    reference_case("silu pre-norm", "silu_pre", batch=2, seq=12, lengths=[12, 5])
    reference_case("quick_gelu -O0 (elementwise kernel)", "quick_gelu_pre", batch=2, seq=7,
                   lengths=[7, 3], flags=["-O0"])
    reference_case("silu -O0 (elementwise kernel)", "silu_pre", batch=2, seq=7, lengths=[7, 3],
                   flags=["-O0"])
    reference_case("no positions", "no_positions", batch=2, seq=6, lengths=[6, 0])
    reference_case("F16 weights", "bert_like", batch=2, seq=6, dtype="F16")
    reference_case("BF16 weights", "rope_halves", batch=2, seq=6, dtype="BF16")
    reference_case("-O0 (no fusion)", "t5_like", batch=2, seq=9, lengths=[9, 3],
                   flags=["-O0"])
    reference_case("max_len sequence", "alibi6", batch=1, seq=32)
    reference_case("sinusoidal past 512 rows", "sinusoidal_long", batch=2, seq=700,
                   lengths=[700, 530])
    reference_case("sinusoidal past 512 rows, tokens", "sinusoidal_long_tokens", batch=2,
                   seq=600, lengths=[600, 513])
    reference_case("12 blocks, d_model 128", "deep12", batch=2, seq=16, lengths=[16, 5])
    # Spec v2 settings, each against the reference and torch.
    reference_case("gated silu (SwiGLU)", "gated_silu", torch=True, batch=2, seq=11,
                   lengths=[11, 4])
    reference_case("gated silu -O0 (unfused)", "gated_silu", batch=2, seq=7, lengths=[7, 3],
                   flags=["-O0"])
    reference_case("gated gelu alibi mean", "gated_gelu_alibi", torch=True, batch=3, seq=9,
                   lengths=[9, 5, 0])
    reference_case("t5 v1.1 head_dim 8 x 6", "t5_v1_1_like", torch=True, batch=2, seq=20,
                   lengths=[20, 7])
    reference_case("head_dim 16 x 4 > d_model", "head_dim_wide", torch=True, batch=2, seq=9,
                   lengths=[9, 2])
    reference_case("position_offset 2", "roberta_like", torch=True, batch=2, seq=24,
                   lengths=[24, 10])
    reference_case("mpnet: learned + relative 32/128", "mpnet_like", torch=True, batch=2,
                   seq=150, lengths=[150, 37])
    reference_case("mean + normalize", "minilm_like", torch=True, batch=3, seq=8,
                   lengths=[8, 3, 0])
    reference_case("cls + normalize", "bge_like", torch=True, batch=3, seq=8, lengths=[8, 1, 0])
    reference_case("max pooling", "bert_max", torch=True, batch=4, seq=9, lengths=[9, 4, 1, 0])
    reference_case("last pooling", "bert_last", torch=True, batch=4, seq=9, lengths=[9, 4, 1, 0])
    reference_case("mlm head", "bert_mlm", torch=True, batch=3, seq=9, lengths=[9, 4, 0])
    reference_case("splade head", "bert_splade", torch=True, batch=3, seq=9, lengths=[9, 4, 0])
    reference_case("dense head + normalize", "labse_like", torch=True, batch=3, seq=8,
                   lengths=[8, 3, 0])
    reference_case("classifier norm, mean", "classifier_norm", torch=True, batch=3, seq=8,
                   lengths=[8, 3, 0])
    reference_case("output_dim 20 mean + normalize", "matryoshka", torch=True, batch=3, seq=8,
                   lengths=[8, 3, 0])
    reference_case("output_dim 7 cls", "matryoshka_cls", torch=True, batch=2, seq=6,
                   lengths=[6, 2])
    reference_case("normalize per token", "normalize_tokens", torch=True, batch=2, seq=6,
                   lengths=[6, 2])
    reference_case("nomic-like swiglu rope 1000", "nomic_like", torch=True, batch=2, seq=12,
                   lengths=[12, 6])
    reference_case("norm_bias false, first_attn_norm false", "modernbert_global", torch=True,
                   batch=2, seq=10, lengths=[10, 3])
    reference_case("norm_bias false -O0", "modernbert_global", batch=2, seq=6, flags=["-O0"])
    reference_case("window 8 every 3rd global, local_base", "modernbert_local", torch=True,
                   batch=2, seq=37, lengths=[37, 9])
    reference_case("window 8 -O0", "modernbert_local", batch=2, seq=21, lengths=[21, 4],
                   flags=["-O0"])
    reference_case("window 7 alibi mean", "local_alibi", torch=True, batch=3, seq=33,
                   lengths=[33, 3, 0])
    reference_case("window 6 relative", "local_relative", torch=True, batch=2, seq=40,
                   lengths=[40, 17])
    out_over_input_case("torch_post_relu")
    lengths_in_out_case("torch_post_relu")
    lengths_in_out_case("bert_like")
    permutation_case("no_positions", True)
    permutation_case("torch_post_relu", False)
    permutation_case("rope_halves", False)
    permutation_case("alibi6", False)
    permutation_case("relative", False)
    passed = sum(results)
    print("%d passed, %d failed" % (passed, len(results) - passed))
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
