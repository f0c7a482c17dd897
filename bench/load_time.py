#!/usr/bin/env python3
"""Load time of a Hugging Face checkpoint against the same weights in the enc
layout (docs/weights.md#hugging-face-layouts), at a published size.

`encc import` turns test/import/Inputs/CONFIG (bert-base-uncased by default,
or ModernBERT-base: 22 blocks whose Q|K|V and gate|up are fused tensors read
as row slices) into a .enc (checkpoint = its layout); encc compiles it, and
the same .enc with checkpoint = enc. Random weights are written four times:
HF names, HF names under the family's prefix (each tensor then resolved
through the layout's alternates), enc names, and enc names again for the
encoder with precision = int8 (its linear layers quantized at load). Each
run is a fresh process timing NAME_load alone; the files stay in the page
cache, runs interleave them, and medians are reported with their ratio to
the enc layout.

usage: load_time.py BUILD_DIR WORKDIR [RUNS] [CONFIG]   (run on an otherwise
idle machine)
"""
import json
import os
import re
import shlex
import statistics
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.dont_write_bytecode = True
from enc_dev import hf_layouts  # noqa: E402
from enc_dev import reference  # noqa: E402
from enc_dev import safetensors_io  # noqa: E402


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("failed: %s\n%s%s" % (" ".join(map(shlex.quote, cmd)), r.stdout, r.stderr))
    return r.stdout


def build(encc, build_dir, enc_path, name, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    obj = os.path.join(out_dir, "model.o")
    run([encc, enc_path, "-o", obj])
    exe = os.path.join(out_dir, "load_main")
    run(["c++", "-std=c++17", "-O2", "-I" + os.path.join(ROOT, "runtime", "include"),
         "-DENC_MODEL=" + name, "-include", os.path.join(out_dir, "model.h"),
         os.path.join(HERE, "load_main.cpp"), obj,
         os.path.join(build_dir, "runtime", "libenc_runtime.a"),
         "-lhwy", "-lhwy_contrib", "-lpthread", "-o", exe])
    return exe


def main():
    build_dir, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    config = sys.argv[4] if len(sys.argv) > 4 else "bert-base-uncased"
    os.makedirs(work, exist_ok=True)
    encc = os.path.join(build_dir, "bin", "encc")
    hf_enc = os.path.join(work, "hf.enc")
    run([encc, "import", os.path.join(ROOT, "test", "import", "Inputs", config),
         "-o", hf_enc])
    text = open(hf_enc).read()
    layout = re.search(r"checkpoint\s*=\s*(\w+);", text).group(1)
    prefix = {"bert": "bert.", "roberta": "roberta.", "distilbert": "distilbert.",
              "modernbert": "model."}.get(layout, "")
    enc_enc = os.path.join(work, "enc.enc")
    enc_text = re.sub(r"checkpoint\s*=\s*\w+;", "checkpoint = enc;", text)
    open(enc_enc, "w").write(enc_text)
    # The same encoder with precision = int8: its linear layers quantized at
    # load (docs/numerics.md#precision).
    int8_enc = os.path.join(work, "int8.enc")
    open(int8_enc, "w").write(enc_text.replace("checkpoint = enc;",
                                               "checkpoint = enc; precision = int8;"))
    name = re.search(r"^encoder\s+(\w+)", text, re.M).group(1)
    hf_exe = build(encc, build_dir, hf_enc, name, os.path.join(work, "hf.build"))
    enc_exe = build(encc, build_dir, enc_enc, name, os.path.join(work, "enc.build"))
    int8_exe = build(encc, build_dir, int8_enc, name, os.path.join(work, "int8.build"))

    spec = reference.normalize_spec(
        json.loads(run([encc, hf_enc, "--emit=spec"]))["encoders"][0])
    rng = np.random.default_rng(7)
    w = {}
    for n, shape in reference.weight_shapes(spec).items():
        w[n] = rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
    files = {
        "enc": (enc_exe, os.path.join(work, "enc.safetensors"), w),
        "hf": (hf_exe, os.path.join(work, "hf.safetensors"), hf_layouts.to_hf(layout, spec, w)),
        "enc int8": (int8_exe, os.path.join(work, "int8.safetensors"), w),
    }
    if prefix:
        files["hf " + prefix] = (hf_exe, os.path.join(work, "hf-prefix.safetensors"),
                                 hf_layouts.to_hf(layout, spec, w, prefix=prefix))
    for exe, path, tensors in files.values():
        safetensors_io.write_sparse(path, tensors)
    size = os.path.getsize(files["enc"][1]) / 2**20
    times = {k: [] for k in files}
    for exe, path, _ in files.values():  # warm the page cache
        run([exe, path])
    for _ in range(runs):
        for k, (exe, path, _) in files.items():
            times[k].append(float(run([exe, path])))
    base = statistics.median(times["enc"])
    print("load time, %s (%.0f MiB F32), %d fresh processes each, interleaved"
          % (config, size, runs))
    for k, t in times.items():
        m = statistics.median(t)
        print("  %-9s median %8.1f ms  (min %.1f, max %.1f)  ratio to enc %.3f"
              % (k, m, min(t), max(t), m / base))
    for _, path, _ in files.values():
        os.remove(path)


if __name__ == "__main__":
    main()
