#!/usr/bin/env python3
"""`encc --emit=shared`: the library runs each encoder exactly as the object
does.

For a few encoders of Inputs/conformance.enc (tokens and token types,
padding, cls and mean pooling, RoPE, relative biases), the harness linked
with the object and the harness that finds the encoder in the shared
library's table (enc/library.h) run the same case: their outputs must be
equal bit for bit. Prints one line per case; exits non-zero on a mismatch.

usage: shared_library.py WORKDIR   (environment as in encc_case.py)
"""
import json
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import encc_case as ec  # noqa: E402

ENC = os.path.join(HERE, "Inputs", "conformance.enc")


def case(work, name, encoder, **kw):
    r = ec.conformance_case(name, ENC, encoder, work, **kw)
    exe, lib = ec.build_shared_model(ENC, encoder, os.path.join(work, name + ".shared"))
    files = json.load(open(os.path.join(r["casedir"], "inputs.json")))["inputs"]
    inputs = {"batch": kw.get("batch", 2), "seq": kw.get("seq", 7),
              "files": {k: v["file"] for k, v in files.items()}}
    out = ec.run_model(exe, r["casedir"], inputs, r["spec"], r["out"].size,
                       library=(lib, encoder))
    same = out.shape == r["out"].shape and np.array_equal(
        out.view(np.uint32), r["out"].view(np.uint32))
    print("%-4s %-28s %d floats, shared == object bit for bit: %s" % (
        "ok" if same and r["ok"] else "FAIL", name, out.size, same), flush=True)
    return same and r["ok"]


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    ok = [
        case(work, "bert_like types", "bert_like", batch=2, seq=11, lengths=[11, 5]),
        case(work, "bert_cls", "bert_cls", batch=3, seq=7, lengths=[7, 2, 0]),
        case(work, "bert_mean", "bert_mean", batch=3, seq=7, lengths=[7, 2, 0]),
        case(work, "rope halves", "rope_halves", batch=2, seq=13, lengths=[13, 6]),
        case(work, "relative", "relative", batch=2, seq=40, lengths=[40, 17]),
    ]
    print("%d passed, %d failed" % (sum(ok), len(ok) - sum(ok)))
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
