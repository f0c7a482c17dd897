"""Runs the family examples (examples/<name>/<name>.enc, each from its
published configuration) on random weights, at their full size.

For each example: encc compiles the .enc, the conformance harness runs it on
a batch of two sequences (one padded), and the output is compared with the
float64 reference (python/enc_dev/reference.py) and with torch_export.torch_forward
under docs/numerics.md's bound. Then the example's own demo, built through
enc_add_model, runs the first sequence from the same weights file, and the
rows it prints must match the reference too.

usage: families.py WORKDIR EXAMPLES_SRC EXAMPLES_BIN NAME...
"""
import os
import re
import shutil
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import encc_case as ec  # noqa: E402
from enc_dev import torch_export as te  # noqa: E402

SEQ, LENGTHS = 12, [12, 5]
# Local attention is only local past its window: ModernBERT (window 128)
# runs sequences longer than one.
LONG = {"modernbert_base": (160, [160, 70])}


def folded_weights(random_weights):
    """reference.random_weights, with Wq scaled as a model that does not
    scale its scores by 1/sqrt(head_dim) is trained: T5 folds that factor
    into Wq (its initialisation has std (d_model * d_kv)^-0.5), so with
    attention_scale = 1.0 unit-scale weights give scores sqrt(d_kv) times
    larger than any trained T5's. Scaling Wq by
    (1/sqrt(head_dim)) / attention_scale puts the scores back at unit scale,
    where docs/numerics.md's bound is stated. (With unit Wq, T5 v1.1's
    outputs differ from float64 by up to 1.7e-4 at -O0 and fused alike: the
    8x larger scores amplify fp32 rounding, whatever computes them.)"""
    def weights(spec, seed=0, scale=1.0):
        w = random_weights(spec, seed, scale)
        factor = (1.0 / np.sqrt(spec["head_dim"])) / spec["attention_scale"]
        for name in w:
            if name.endswith(".attn.q.weight"):
                w[name] = w[name] * factor
        return w
    return weights


def demo_rows(exe, weights, ids):
    """The rows the demo prints: its first four values each."""
    out = subprocess.run([exe, weights] + [str(i) for i in ids], capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (exe, out.returncode, out.stderr))
    rows = [line.split(":", 1)[1].split() for line in out.stdout.splitlines()
            if re.match(r"^\s+\d+:", line)]
    return np.array(rows, dtype=np.float64)


def main():
    workdir, src, bindir, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    os.makedirs(workdir, exist_ok=True)
    ec.reference.random_weights = folded_weights(ec.reference.random_weights)
    failed = 0
    for name in names:
        enc = os.path.join(src, name, name + ".enc")
        seq, lengths = LONG.get(name, (SEQ, LENGTHS))
        r = ec.conformance_case(name, enc, name, workdir, batch=2, seq=seq, lengths=lengths,
                                with_types=False)
        t = te.torch_forward(r["spec"], r["weights"], **{
            k: r["inputs"].get(k) for k in ("tokens", "token_types", "embeddings", "lengths")})
        t_abs, t_rel, t_ok = ec.compare(r["out"], t)
        # The demo: sequence 0 alone, from the same weights file; it prints
        # four decimals, so half a unit of the last one is added to the bound.
        got = demo_rows(os.path.join(bindir, name + "_demo"),
                        os.path.join(r["casedir"], "weights.safetensors"),
                        r["inputs"]["tokens"][0])
        want = r["expected"][0].reshape(-1, r["spec"]["d_model"])[:, :4]
        demo_ok = got.shape == want.shape and bool(np.all(
            np.abs(got - want) <= 5e-5 + ec.TOLERANCE * np.maximum(1.0, np.abs(want))))
        ok = r["ok"] and t_ok and demo_ok
        failed += not ok
        print("%-4s %-22s vs float64 max|err| %.3g rel %.3g; vs torch rel %.3g; demo %s"
              % ("ok" if ok else "FAIL", name, r["abs"], r["rel"], t_rel,
                 "matches" if demo_ok else "DIFFERS: %s vs %s" % (got, want)), flush=True)
        shutil.rmtree(r["casedir"])  # full-size weights: do not keep them
    print("%d passed, %d failed" % (len(names) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
