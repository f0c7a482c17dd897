#!/usr/bin/env python3
"""Sentence-transformers model directories end to end
(docs/weights.md#model-directories, docs/language.md#heads): each case
writes a directory as sentence-transformers saves one (config.json,
model.safetensors in the family's Hugging Face names, modules.json,
1_Pooling/config.json, 2_Dense/config.json with its own model.safetensors,
3_Normalize), `encc import DIR` writes the .enc, the compiled model loads
the directory itself (the Dense module's `linear.*` from its own file), and
the output is held against the float64 reference and PyTorch (nn.Linear,
nn.Tanh / nn.Identity, normalize) within 1e-4 * max(1, |ref|). Then the
directory's failures: a Dense file without its weight is refused naming
it, a modules.json path outside the directory and a directory with only
pytorch_model.bin are refused naming the file. Prints one line per check;
exits 1 if any fails.

usage: st_directory.py WORKDIR   (environment as in encc_case.py)
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import encc_case as ec  # noqa: E402
from enc_dev import hf_layouts  # noqa: E402
from enc_dev import reference  # noqa: E402
from enc_dev import safetensors_io as st  # noqa: E402
from enc_dev import torch_export as te  # noqa: E402

BATCH, SEQ, LENGTHS = 3, 8, [8, 3, 1]
BERT = {"architectures": ["BertModel"], "model_type": "bert", "hidden_size": 32,
        "num_attention_heads": 4, "intermediate_size": 64, "num_hidden_layers": 2,
        "vocab_size": 50, "max_position_embeddings": 16, "type_vocab_size": 2,
        "hidden_act": "gelu", "layer_norm_eps": 1e-12}
T5 = {"architectures": ["T5EncoderModel"], "model_type": "t5", "d_model": 32,
      "num_heads": 4, "d_kv": 8, "d_ff": 64, "num_layers": 2, "vocab_size": 50,
      "feed_forward_proj": "relu", "relative_attention_num_buckets": 8,
      "relative_attention_max_distance": 20, "layer_norm_epsilon": 1e-6}
# name, layout, config, pooling mode key, Dense (out, bias, activation class)
CASES = (("labse_like", "bert", BERT, "pooling_mode_cls_token",
          (24, True, "torch.nn.modules.activation.Tanh")),
         ("sentence_t5_like", "t5", T5, "pooling_mode_mean_tokens",
          (40, False, "torch.nn.modules.linear.Identity")))
failures = []


def check(ok, what):
    print("%-4s %s" % ("ok" if ok else "FAIL", what), flush=True)
    if not ok:
        failures.append(what)


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f)


def write_directory(d, layout, config, pooling, dense, spec, w):
    """The directory sentence-transformers saves for `spec` with weights w."""
    write_json(os.path.join(d, "config.json"), config)
    modules = [("Transformer", ""), ("Pooling", "1_Pooling"), ("Dense", "2_Dense"),
               ("Normalize", "3_Normalize")]
    write_json(os.path.join(d, "modules.json"), [
        {"idx": i, "name": str(i), "path": p, "type": "sentence_transformers.models." + t}
        for i, (t, p) in enumerate(modules)])
    write_json(os.path.join(d, "1_Pooling", "config.json"),
               {"word_embedding_dimension": spec["d_model"], pooling: True})
    out, bias, act = dense
    write_json(os.path.join(d, "2_Dense", "config.json"),
               {"in_features": spec["d_model"], "out_features": out, "bias": bias,
                "activation_function": act})
    os.makedirs(os.path.join(d, "3_Normalize"), exist_ok=True)
    names = hf_layouts.to_hf(layout, spec, w, extra=False)
    module = {n.split("/", 1)[1]: v for n, v in names.items() if n.startswith("2_Dense/")}
    main = {n: v for n, v in names.items() if not n.startswith("2_Dense/")}
    st.write_safetensors(os.path.join(d, "model.safetensors"), main, "F32")
    st.write_safetensors(os.path.join(d, "2_Dense", "model.safetensors"), module, "F32")
    return module


def run_dir(exe, weights, casedir):
    return subprocess.run([exe, "--weights", weights, "--batch", str(BATCH), "--seq",
                           str(SEQ), "--out-floats", "1", "--out",
                           os.path.join(casedir, "x.bin"), "--tokens",
                           os.path.join(casedir, "tokens.bin")],
                          capture_output=True, text=True)


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    for name, layout, config, pooling, dense in CASES:
        casedir = os.path.join(work, name)
        model = os.path.join(casedir, "model")
        os.makedirs(model, exist_ok=True)
        # The directory's spec, as import writes it (first with the head's
        # weights absent: the spec decides their shapes).
        write_json(os.path.join(model, "config.json"), config)
        enc_path = os.path.join(casedir, name + ".enc")
        ec.run([ec.env("ENCC"), "import", model, "-o", enc_path, "--name", name])
        spec0 = reference.normalize_spec(ec.spec_of(enc_path, name))
        # Import without modules.json gave the bare encoder; the directory's
        # modules decide the rest.
        spec = dict(spec0, pooling="cls" if "cls" in pooling else "mean", normalize=True,
                    head={"scheme": "dense", "dim": dense[0], "bias": dense[1],
                          "activation": "tanh" if dense[2].endswith("Tanh") else "identity"})
        spec = reference.normalize_spec(spec)
        w = reference.random_weights(spec, seed=3)
        w = {k: np.asarray(v, dtype=np.float32).astype(np.float64) for k, v in w.items()}
        module = write_directory(model, layout, config, pooling, dense, spec, w)
        ec.run([ec.env("ENCC"), "import", model, "-o", enc_path, "--name", name])
        imported = reference.normalize_spec(ec.spec_of(enc_path, name))
        check(imported["head"] == spec["head"] and imported["pooling"] == spec["pooling"]
              and imported["normalize"],
              "%s: encc import reads the Pooling, Dense and Normalize modules: %s"
              % (name, imported["head"]))
        exe = ec.build_model(enc_path, name, casedir + ".build")
        rng = np.random.default_rng(5)
        tokens = rng.integers(0, spec["vocab"], size=(BATCH, SEQ)).astype(np.int32)
        tokens.astype("<i4").tofile(os.path.join(casedir, "tokens.bin"))
        np.asarray(LENGTHS, dtype="<i4").tofile(os.path.join(casedir, "lengths.bin"))
        inputs = dict(tokens=tokens, lengths=np.asarray(LENGTHS))
        r = subprocess.run([exe, "--weights", model, "--batch", str(BATCH), "--seq", str(SEQ),
                            "--out-floats", str(BATCH * dense[0]), "--out",
                            os.path.join(casedir, "out.bin"), "--tokens",
                            os.path.join(casedir, "tokens.bin"), "--lengths",
                            os.path.join(casedir, "lengths.bin")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            check(False, "%s: loads the directory: %s" % (name, r.stdout + r.stderr))
            continue
        out = np.fromfile(os.path.join(casedir, "out.bin"), dtype="<f4")
        ref = reference.forward(spec, w, **inputs)
        _, rel, ok = ec.compare(out, ref)
        check(ok and ref.shape == (BATCH, dense[0]),
              "%s (%s directory): %s vs float64 reference, rel %.2e"
              % (name, layout, list(ref.shape), rel))
        _, rel, ok = ec.compare(out, te.torch_forward(spec, w, **inputs))
        check(ok, "%s: vs torch, rel %.2e" % (name, rel))
        # The Dense file without its weight.
        bad = os.path.join(casedir, "bad")
        shutil.copytree(model, bad)
        st.write_safetensors(os.path.join(bad, "2_Dense", "model.safetensors"),
                             {k: v for k, v in module.items() if k != "linear.weight"}
                             or {"other": np.zeros(1)}, "F32")
        r = run_dir(exe, bad, casedir)
        check(r.returncode != 0 and "2_Dense/linear.weight" in r.stdout + r.stderr,
              "%s: a Dense file without linear.weight is refused naming it" % name)
    # Directories that are not what they say.
    casedir = os.path.join(work, CASES[0][0])
    exe = os.path.join(casedir + ".build", "harness")
    bad = os.path.join(work, "outside")
    shutil.copytree(os.path.join(casedir, "model"), bad)
    write_json(os.path.join(bad, "modules.json"), [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "../../etc", "type": "sentence_transformers.models.Dense"}])
    r = run_dir(exe, bad, casedir)
    check(r.returncode != 0 and "outside the directory" in r.stdout + r.stderr,
          "a modules.json path outside the directory is refused: %s"
          % (r.stdout + r.stderr).strip().splitlines()[-1:])
    bin_only = os.path.join(work, "bin_only")
    os.makedirs(bin_only, exist_ok=True)
    open(os.path.join(bin_only, "pytorch_model.bin"), "wb").close()
    r = run_dir(exe, bin_only, casedir)
    check(r.returncode != 0 and "only pytorch_model.bin" in r.stdout + r.stderr,
          "a directory with only pytorch_model.bin is refused naming it")
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
