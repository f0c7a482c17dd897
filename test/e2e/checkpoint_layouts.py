#!/usr/bin/env python3
"""Hugging Face checkpoints loaded as they are (docs/weights.md, checkpoint
layouts), at the published shapes.

For each published configuration in test/import/Inputs: `encc import` writes
the .enc (checkpoint = its layout); encc compiles it, and compiles the same
.enc with `checkpoint = enc`. Random weights are written twice, once under the
family's Hugging Face names (hf_layouts.py, the oracle written from the
families' modeling code, with the unused tensors a real checkpoint holds and
an I64 `embeddings.position_ids` buffer) and once under enc's names. Both
models run on the same tokens: their outputs must be equal bit for bit, and
within docs/numerics.md's bound of the float64 reference.

Every shape is the published one. The token table alone is sparse: its rows
are zero (holes in the file) except the rows of the tokens the test reads, so
that XLM-R's 768 MB table costs no disk; the reference gathers from those
rows alone, with the token ids renumbered.

ModernBERT: the ModernBERT-base configuration with fewer and narrower
layers (4 blocks of d_model 64, a window of 4 so that local blocks differ
from global ones), its tensors at their exact names and shapes: Wqkv and Wi
fused, read as row slices. Its weights are rounded to bfloat16 so that the
file is also written in BF16 (and under `model.`) with the same values. A
file without Wqkv must list the missing fused tensors once each, and a Wqkv
of the wrong shape must be named with the shape it needs.

T5 (t5-small, t5-v1_1-small, flan-t5-small) with `shared.weight` and with
T5EncoderModel's `encoder.embed_tokens.weight`, and its decoder and lm_head
tensors beside. MPNet (all-mpnet-base-v2): learned positions after the
padding row and the encoder's one relative-bias table. NomicBERT
(nomic-embed-text-v1.5, narrower: 3 blocks of 64, n_inner 160 rounded up to
256): fused Wqkv, fc11/fc12, and besides the float64 reference a torch
transcription of contrastors' own model (nomic_torch.py). Variants: BERT's names under the `bert.` prefix and with LayerNorm gamma/beta
(on all-MiniLM-L6-v2, a BERT), DistilBERT's under `distilbert.`. A file in
another layout must fail with the layout it looks like and the missing
tensors listed under this layout's names.

usage: checkpoint_layouts.py WORKDIR [CONFIG...]
"""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import encc_case  # noqa: E402
from enc_dev import hf_layouts  # noqa: E402
from enc_dev import reference  # noqa: E402
from enc_dev import safetensors_io  # noqa: E402

INPUTS = os.path.join(HERE, "..", "import", "Inputs")
BATCH, SEQ, LENGTHS = 2, 8, [8, 5]
# A small encoder of another family, for the file in a foreign layout.
FOREIGN_SPEC = dict(d_model=16, heads=2, blocks=1, vocab=11, positional="learned",
                    embed_norm=True)

# (config directory, layout, [(variant, prefix, gamma_beta[, dtype])]
#  [, the config's keys changed])
CASES = [
    ("bert-base-uncased", "bert", [("plain", "", False)]),
    ("all-MiniLM-L6-v2", "bert", [("plain", "", False), ("prefix", "bert.", False),
                                  ("gamma_beta", "bert.", True)]),
    ("bge-small-en-v1.5", "bert", [("plain", "", False)]),
    ("roberta-base", "roberta", [("plain", "", False), ("prefix", "roberta.", False)]),
    ("xlm-roberta-base", "roberta", [("plain", "", False)]),
    ("electra-base-discriminator", "electra", [("plain", "", False),
                                               ("prefix", "electra.", False)]),
    ("distilbert-base-uncased", "distilbert", [("plain", "", False),
                                               ("prefix", "distilbert.", False)]),
    ("t5-small", "t5", [("plain", "", False), ("embed_tokens", "", False)]),
    ("t5-v1_1-small", "t5", [("plain", "", False)]),
    ("flan-t5-small", "t5", [("plain", "", False)]),
    ("all-mpnet-base-v2", "mpnet", [("plain", "", False), ("prefix", "mpnet.", False)]),
    ("nomic-embed-text-v1.5", "nomic_bert", [("plain", "", False), ("prefix", "bert.", False)],
     dict(n_embd=64, n_head=4, n_layer=3, n_inner=160, n_positions=64)),
    ("ModernBERT-base", "modernbert",
     [("plain", "", False), ("prefix", "model.", False), ("bf16", "model.", False, "BF16")],
     dict(hidden_size=64, num_attention_heads=4, num_hidden_layers=4, intermediate_size=96,
          local_attention=4)),
]


def to_bfloat16(a):
    """float32 `a` rounded to the nearest bfloat16 (ties to even), as float32."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


def random_weights(spec, rng, token_ids, bf16=False):
    """Canonical weights as reference.random_weights draws them, in float32
    (rounded to bfloat16 values with bf16), with a sparse token table."""
    w = _random_weights(spec, rng, token_ids)
    if bf16:
        for name, a in w.items():
            if isinstance(a, safetensors_io.SparseRows):
                a.values = to_bfloat16(a.values)
            else:
                w[name] = to_bfloat16(a)
    return w


def _random_weights(spec, rng, token_ids):
    w = {}
    for name, shape in reference.weight_shapes(spec).items():
        if name == "embed.tokens":
            w[name] = safetensors_io.SparseRows(shape[0], shape[1], token_ids,
                                 rng.standard_normal((len(token_ids), shape[1]),
                                                     dtype=np.float32))
            continue
        z = rng.standard_normal(shape, dtype=np.float32)
        if name.startswith("embed."):
            w[name] = z if not name.startswith("embed.norm") else (
                1 + np.float32(0.1) * z if name.endswith(".weight") else np.float32(0.1) * z)
        elif "norm" in name:
            w[name] = 1 + np.float32(0.1) * z if name.endswith(".weight") else np.float32(0.1) * z
        elif name.endswith(".weight"):
            w[name] = z * np.float32(1 / np.sqrt(shape[1]))
            if name.endswith("attn.q.weight") and spec["attention_scale"] == 1.0:
                # T5 scores are not scaled: its checkpoints hold Q with the
                # 1/sqrt(d_kv) folded in (T5's initialisation), and scores
                # of unscaled random Q would test the softmax's conditioning
                # rather than the layout.
                w[name] = w[name] * np.float32(1 / np.sqrt(spec["head_dim"]))
        else:
            w[name] = z * np.float32(0.1)
    return w


def harness_output(exe, weights_path, casedir, out_floats):
    out = os.path.join(casedir, "out.bin")
    encc_case.run([exe, "--weights", weights_path, "--batch", str(BATCH), "--seq", str(SEQ),
                   "--out-floats", str(out_floats), "--out", out,
                   "--tokens", os.path.join(casedir, "tokens.bin"),
                   "--lengths", os.path.join(casedir, "lengths.bin")])
    return np.fromfile(out, dtype="<f4")


def harness_error(exe, weights_path, casedir):
    r = subprocess.run([exe, "--weights", weights_path, "--batch", str(BATCH), "--seq",
                        str(SEQ), "--out-floats", "1", "--out",
                        os.path.join(casedir, "out.bin"),
                        "--tokens", os.path.join(casedir, "tokens.bin")],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def check_case(workdir, config, layout, variants, seed, changes=None):
    results = []
    casedir = os.path.join(workdir, config)
    os.makedirs(casedir, exist_ok=True)
    hf_enc = os.path.join(casedir, "hf.enc")
    source = os.path.join(INPUTS, config)
    if changes:
        with open(os.path.join(source, "config.json")) as f:
            cfg = json.load(f)
        cfg.update(changes)
        source = os.path.join(casedir, "config.json")
        with open(source, "w") as f:
            json.dump(cfg, f, indent=2)
    encc_case.run([encc_case.env("ENCC"), "import", source, "-o", hf_enc])
    text = open(hf_enc).read()
    if not re.search(r"^\s*checkpoint\s*=\s*%s;" % layout, text, re.M):
        raise RuntimeError("%s: encc import wrote no 'checkpoint = %s'" % (config, layout))
    enc_enc = os.path.join(casedir, "enc.enc")
    with open(enc_enc, "w") as f:
        f.write(re.sub(r"^(\s*checkpoint\s*=\s*)%s;" % layout, r"\1enc;", text, flags=re.M))
    name = re.search(r"^encoder\s+(\w+)", text, re.M).group(1)
    spec = encc_case.spec_of(hf_enc, name)
    hf_exe = encc_case.build_model(hf_enc, name, os.path.join(casedir, "hf.build"))
    enc_exe = encc_case.build_model(enc_enc, name, os.path.join(casedir, "enc.build"))
    header = open(os.path.join(casedir, "hf.build", "model.h")).read()
    first = hf_layouts.to_hf(layout, spec, {n: np.zeros(1) for n in
                                            reference.weight_shapes(spec)}, extra=False)
    listed = all((" *   " + n + " ") in header for n in first)
    results.append(("header lists the %s names" % layout, config, listed, ""))

    rng = np.random.default_rng(seed)
    vocab = spec["vocab"]
    tokens = rng.integers(0, vocab, size=(BATCH, SEQ))
    tokens[0, 0] = vocab - 1  # the table's last row
    used = np.unique(tokens)
    tokens.astype("<i4").tofile(os.path.join(casedir, "tokens.bin"))
    np.asarray(LENGTHS, dtype="<i4").tofile(os.path.join(casedir, "lengths.bin"))
    bf16 = any(len(v) > 3 and v[3] == "BF16" for v in variants)
    w = random_weights(spec, rng, used, bf16=bf16)

    # The float64 reference, gathering from the used rows alone.
    compact = dict(w)
    compact["embed.tokens"] = w["embed.tokens"].values
    cspec = dict(spec, vocab=len(used))
    expected = reference.forward(cspec, {k: np.asarray(v, dtype=np.float64)
                                         for k, v in compact.items()},
                                 tokens=np.searchsorted(used, tokens),
                                 lengths=np.asarray(LENGTHS))

    enc_path = os.path.join(casedir, "enc.safetensors")
    safetensors_io.write_sparse(enc_path, w)
    enc_out = harness_output(enc_exe, enc_path, casedir, expected.size)
    os.remove(enc_path)
    _, rel, ok = encc_case.compare(enc_out, expected)
    results.append(("enc layout vs float64 reference", config, ok, "rel %.2e" % rel))

    for variant, prefix, gamma_beta, *dtype in variants:
        hf = hf_layouts.to_hf(layout, spec, w, prefix=prefix, gamma_beta=gamma_beta)
        if layout == "t5":
            if variant == "embed_tokens":  # T5EncoderModel's name for the table
                hf["encoder.embed_tokens.weight"] = hf.pop("shared.weight")
        elif layout not in ("modernbert", "nomic_bert"):  # BERT's, DistilBERT's buffer
            hf[prefix + "embeddings.position_ids"] = np.arange(
                spec["max_len"] + spec.get("position_offset", 0), dtype=np.int64)[None]
        path = os.path.join(casedir, "hf-%s.safetensors" % variant)
        safetensors_io.write_sparse(path, hf, dtype=dtype[0] if dtype else "F32")
        out = harness_output(hf_exe, path, casedir, expected.size)
        os.remove(path)
        same = out.shape == enc_out.shape and out.tobytes() == enc_out.tobytes()
        _, rel, ok = encc_case.compare(out, expected)
        results.append(("%s names (%s) bit for bit = enc layout" % (layout, variant),
                        config, same, ""))
        results.append(("%s names (%s) vs float64 reference" % (layout, variant),
                        config, ok, "rel %.2e" % rel))

    # A file in another family's layout: which one it looks like, and what is
    # missing under this layout's names.
    other = "bert" if layout == "distilbert" else "distilbert"
    ospec = reference.normalize_spec(dict(FOREIGN_SPEC, type_vocab=int(other == "bert")))
    zeros = {n: np.zeros(s, dtype=np.float32) for n, s in reference.weight_shapes(ospec).items()}
    path = os.path.join(casedir, "foreign.safetensors")
    safetensors_io.write_sparse(path, hf_layouts.to_hf(other, ospec, zeros, extra=False))
    rc, msg = harness_error(hf_exe, path, casedir)
    os.remove(path)
    looks = "DistilBERT" if other == "distilbert" else "BERT, RoBERTa or ELECTRA"
    good = (rc != 0 and "looks like a Hugging Face %s checkpoint" % looks in msg
            and re.search(r"\d+ of the \d+ tensors the model reads are missing", msg)
            and "(checkpoint = %s)" % layout in msg
            and re.search(r"'(encoder\.layers?|transformer\.layer|encoder\.block|layers)\.0\.",
                          msg))
    results.append(("%s file refused as %s" % (other, looks), config, bool(good),
                    msg.strip().splitlines()[-1][:200] if not good else ""))
    if layout == "modernbert":
        results += check_fused_errors(spec, w, hf_exe, casedir)
    if layout == "nomic_bert":
        results.append(check_nomic_torch(spec, w, used, tokens, hf_exe, casedir, source,
                                         expected.size))
    shutil.rmtree(casedir, ignore_errors=True)
    return results


def check_nomic_torch(spec, w, used, tokens, exe, casedir, config_path, out_floats):
    """The HF-named file against nomic_torch.py, a transcription of
    contrastors' NomicBertModel (and sentence-transformers' mean) in torch."""
    import nomic_torch
    with open(config_path if config_path.endswith(".json")
              else os.path.join(config_path, "config.json")) as f:
        config = json.load(f)
    hf = hf_layouts.to_hf("nomic_bert", spec, w, extra=False)
    path = os.path.join(casedir, "hf-torch.safetensors")
    safetensors_io.write_sparse(path, hf)
    out = harness_output(exe, path, casedir, out_floats)
    os.remove(path)
    compact = {n: (a.values if isinstance(a, safetensors_io.SparseRows) else a)
               for n, a in hf.items()}
    hidden = nomic_torch.forward(compact, config, np.searchsorted(used, tokens), LENGTHS)
    if spec["pooling"] == "mean":  # the directory's 1_Pooling
        expected = nomic_torch.mean_pool(hidden, LENGTHS).numpy()
    elif spec["pooling"] == "none":  # a lone config.json: padding rows are zero
        valid = np.arange(SEQ)[None, :] < np.asarray(LENGTHS)[:, None]
        expected = np.where(valid[:, :, None], hidden.numpy(), 0.0)
    else:
        raise ValueError("pooling %r: not checked against torch" % spec["pooling"])
    _, rel, ok = encc_case.compare(out, expected)
    return ("nomic_bert names vs contrastors' NomicBertModel in torch", "nomic-embed-text-v1.5",
            ok, "rel %.2e" % rel)


def check_fused_errors(spec, w, exe, casedir):
    """A file without the fused Wqkv, and one whose Wqkv has the wrong shape."""
    results = []
    d, blocks = spec["d_model"], spec["blocks"]
    hf = hf_layouts.to_hf("modernbert", spec, w, extra=False)
    path = os.path.join(casedir, "no-wqkv.safetensors")
    safetensors_io.write_sparse(path, {n: a for n, a in hf.items() if ".attn.Wqkv." not in n})
    rc, msg = harness_error(exe, path, casedir)
    os.remove(path)
    total = len(hf)
    want = ("%d of the %d tensors the model reads are missing: 'layers.0.attn.Wqkv.weight' "
            "[%d, %d] (blocks.0.attn.q.weight, blocks.0.attn.k.weight, blocks.0.attn.v.weight), "
            "'layers.1.attn.Wqkv.weight'" % (blocks, total, 3 * d, d))
    good = rc != 0 and want in msg and "(checkpoint = modernbert)" in msg
    results.append(("a file without Wqkv lists it once per block", "ModernBERT-base", good,
                    "" if good else msg.strip()[-300:]))
    bad = dict(hf)
    bad["layers.1.attn.Wqkv.weight"] = hf["layers.1.attn.Wqkv.weight"][: 2 * d]
    path = os.path.join(casedir, "short-wqkv.safetensors")
    safetensors_io.write_sparse(path, bad)
    rc, msg = harness_error(exe, path, casedir)
    os.remove(path)
    want = "tensor 'layers.1.attn.Wqkv.weight' has shape [%d, %d], expected [%d, %d]" % (
        2 * d, d, 3 * d, d)
    good = rc != 0 and want in msg
    results.append(("a Wqkv of the wrong shape is named", "ModernBERT-base", good,
                    "" if good else msg.strip()[-300:]))
    return results


def main():
    workdir = sys.argv[1]
    os.makedirs(workdir, exist_ok=True)
    passed = failed = 0
    only = sys.argv[2:]  # configs to check (all by default)
    for seed, (config, layout, variants, *changes) in enumerate(CASES, start=1):
        if only and config not in only:
            continue
        for what, cfg, ok, detail in check_case(workdir, config, layout, variants, seed,
                                                *changes):
            print("%-4s %s: %s %s" % ("ok" if ok else "FAIL", cfg, what, detail), flush=True)
            passed += bool(ok)
            failed += not ok
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
