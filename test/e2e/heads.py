#!/usr/bin/env python3
"""Classifier, ColBERT, masked-LM and SPLADE heads (docs/language.md#heads)
end to end: each encoder of Inputs/heads.enc is compiled, loads random
weights written under its family's Hugging Face names (hf_layouts.py, the
test oracle: the encoder under the family prefix, the head beside it as
...ForSequenceClassification / ...ForMaskedLM name it, a tied decoder left
out as transformers saves it; ColBERTv2's `linear` beside `bert.`), and its
output ([batch, labels], [batch, seq, dim or vocab] or SPLADE's [batch,
vocab]) is held against the float64 reference and against PyTorch's modules
on the same weights, within 1e-4 * max(1, |ref|); int8 by cosine >= 0.999. A
file without the head's last tensor is refused naming it. Prints one line
per check; exits 1 if any fails.

usage: heads.py WORKDIR   (environment as in encc_case.py)
"""
import os
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

ENC = os.path.join(HERE, "Inputs", "heads.enc")
BATCH, SEQ, LENGTHS = 3, 9, [9, 4, 1]
# encoder -> (layout, family prefix of the encoder's names)
CASES = (("bert_seq", "bert", "bert."), ("roberta_seq", "roberta", "roberta."),
         ("electra_cross", "electra", "electra."), ("distilbert_seq", "distilbert",
                                                     "distilbert."),
         ("own_mean_linear", "enc", ""), ("colbert_v2", "bert", "bert."),
         ("bert_mlm", "bert", "bert."), ("roberta_mlm", "roberta", "roberta."),
         ("distilbert_splade", "distilbert", "distilbert."),
         ("bert_splade", "bert", "bert."), ("modernbert_mlm", "modernbert", "model."),
         ("own_splade_int8", "enc", ""), ("modernbert_seq", "modernbert", "model."))
# Masked-LM heads whose checkpoint ties the decoder to the token embeddings
# (saved without it); the others carry a decoder of their own.
TIED = ("bert_mlm", "distilbert_splade", "modernbert_mlm")
failures = []


def check(ok, what):
    print("%-4s %s" % ("ok" if ok else "FAIL", what), flush=True)
    if not ok:
        failures.append(what)


def cosine(a, b):
    """The smallest cosine between matching rows of a and b (zero rows: 1)."""
    a = a.reshape(-1, a.shape[-1]).astype(np.float64)
    b = b.reshape(-1, b.shape[-1]).astype(np.float64)
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    both = (na > 0) & (nb > 0)
    if (both != ((na > 0) | (nb > 0))).any():
        return 0.0
    return float(((a[both] * b[both]).sum(1) / (na[both] * nb[both])).min(initial=1.0))


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    for encoder, layout, prefix in CASES:
        casedir = os.path.join(work, encoder)
        os.makedirs(casedir, exist_ok=True)
        spec = reference.normalize_spec(ec.spec_of(ENC, encoder))
        head = spec["head"]
        width = {"classifier": head.get("labels"), "colbert": head.get("dim")}.get(
            head["scheme"], spec["vocab"])
        exe = ec.build_model(ENC, encoder, casedir + ".build")
        w = reference.random_weights(spec, seed=len(encoder))
        # Round to fp32 once: every implementation reads the same values.
        w = {k: np.asarray(v, dtype=np.float32).astype(np.float64) for k, v in w.items()}
        if encoder in TIED:
            w["head.decoder.weight"] = w["embed.tokens"]
        rng = np.random.default_rng(5)
        tokens = rng.integers(0, spec["vocab"], size=(BATCH, SEQ)).astype(np.int32)
        types = (rng.integers(0, spec["type_vocab"], size=(BATCH, SEQ)).astype(np.int32)
                 if spec["type_vocab"] > 0 else None)
        tokens.astype("<i4").tofile(os.path.join(casedir, "tokens.bin"))
        np.asarray(LENGTHS, dtype="<i4").tofile(os.path.join(casedir, "lengths.bin"))
        files = {"tokens": "tokens.bin", "lengths": "lengths.bin"}
        if types is not None:
            types.astype("<i4").tofile(os.path.join(casedir, "types.bin"))
            files["token_types"] = "types.bin"
        names = (w if layout == "enc" else
                 hf_layouts.to_hf(layout, spec, w, prefix=prefix))
        st.write_safetensors(os.path.join(casedir, "weights.safetensors"), names, "F32")
        inputs = dict(tokens=tokens, token_types=types, lengths=np.asarray(LENGTHS))
        ref = reference.forward(spec, w, **inputs)
        out = ec.run_model(exe, casedir, {"batch": BATCH, "seq": SEQ, "files": files},
                           spec, ref.size).reshape(ref.shape)
        if spec["precision"] == "int8":
            cos = cosine(out, ref)
            check(cos >= 0.999 and ref.shape[-1] == width,
                  "%s (int8): %s vs float64 reference, cosine %.5f"
                  % (encoder, list(ref.shape), cos))
            continue
        _, rel, ok = ec.compare(out, ref)
        check(ok and ref.shape[-1] == width,
              "%s (%s names): %s vs float64 reference, rel %.2e"
              % (encoder, layout, list(ref.shape), rel))
        t = te.torch_forward(spec, w, **inputs)
        _, rel, ok = ec.compare(out, t)
        check(ok, "%s: vs torch, rel %.2e" % (encoder, rel))
        if layout != "enc":
            head_out = [n for n in names if (n.endswith("weight") and
                        np.shape(names[n]) == (width, spec["d_model"]) or
                        n.endswith("bias") and np.shape(names[n]) == (spec["vocab"],))][-1]
            del names[head_out]
            bad = os.path.join(casedir, "no_head.safetensors")
            st.write_safetensors(bad, names, "F32")
            r = subprocess.run([exe, "--weights", bad, "--batch", str(BATCH), "--seq",
                                str(SEQ), "--out-floats", "1", "--out",
                                os.path.join(casedir, "x.bin"), "--tokens",
                                os.path.join(casedir, "tokens.bin")],
                               capture_output=True, text=True)
            check(r.returncode != 0 and head_out in r.stdout + r.stderr,
                  "%s: a file without %s is refused naming it" % (encoder, head_out))
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
