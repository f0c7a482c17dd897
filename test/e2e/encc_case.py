"""Compile an encoder with encc, run it on a reference case, compare.

The end-to-end half of the conformance suite: `encc` compiles the .enc text
to an object and header, the C++ harness (harness.cpp) links them with the
runtime, runs the inputs reference.make_case wrote, and the output is
compared element by element with the float64 reference under docs/numerics.md's
tolerance, |out - ref| <= 1e-4 * max(1, |ref|).

Paths come from the environment lit sets (see test/lit.cfg.py): ENCC (the
encc binary), ENC_RUNTIME_LIB (libenc_runtime.a), ENC_RUNTIME_INCLUDE, CXX (a
compiler and its flags), ENC_LINK_LIBS (the runtime's own dependencies).
"""
import json
import os
import shlex
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from enc_dev import reference  # noqa: E402

TOLERANCE = 1e-4


def env(name):
    value = os.environ.get(name)
    if not value:
        raise SystemExit("encc_case.py: %s is not set (run through lit)" % name)
    return value


def run(cmd, **kw):
    result = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s%s" % (
            result.returncode, " ".join(shlex.quote(c) for c in cmd),
            result.stdout, result.stderr))
    return result


def spec_of(enc_path, encoder):
    out = run([env("ENCC"), enc_path, "--emit=spec", "--encoder=" + encoder]).stdout
    return json.loads(out)["encoders"][0]


def build_model(enc_path, encoder, workdir, extra_flags=()):
    """encc -> model.o + model.h, then the harness linked against them."""
    os.makedirs(workdir, exist_ok=True)
    obj = os.path.join(workdir, "model.o")
    run([env("ENCC"), enc_path, "--encoder=" + encoder, "-o", obj] + list(extra_flags))
    exe = os.path.join(workdir, "harness")
    # CXX may carry flags (-fsanitize=... in a sanitized build).
    cmd = shlex.split(env("CXX")) + [
        "-std=c++17", "-O1", "-I" + env("ENC_RUNTIME_INCLUDE"),
        "-DENC_MODEL=" + encoder, "-include", os.path.join(workdir, "model.h"),
        os.path.join(HERE, "harness.cpp"), obj, env("ENC_RUNTIME_LIB"), "-o", exe]
    cmd += env("ENC_LINK_LIBS").split()
    run(cmd)
    return exe


def build_shared_model(enc_path, encoder, workdir, extra_flags=()):
    """encc --emit=shared -> libmodel.so (this encoder alone), and the harness
    built without a model, which finds it in the library's table. Returns
    (harness, library)."""
    os.makedirs(workdir, exist_ok=True)
    lib = os.path.join(workdir, "libmodel.so")
    run([env("ENCC"), enc_path, "--emit=shared", "--encoder=" + encoder, "-o", lib,
         "--runtime-lib=" + env("ENC_RUNTIME_LIB")] + list(extra_flags))
    exe = os.path.join(workdir, "harness")
    cmd = shlex.split(env("CXX")) + [
        "-std=c++17", "-O1", "-I" + env("ENC_RUNTIME_INCLUDE"),
        os.path.join(HERE, "harness.cpp"), "-o", exe, "-ldl"]
    run(cmd)
    return exe, lib


def run_model(exe, casedir, inputs, spec, out_floats, extra_env=None, repeat=1,
              library=None):
    """Runs the harness on a case; `library` is (path, encoder) for a harness
    of build_shared_model."""
    args = [exe, "--weights", os.path.join(casedir, "weights.safetensors"),
            "--batch", str(inputs["batch"]), "--seq", str(inputs["seq"]),
            "--out-floats", str(out_floats), "--out", os.path.join(casedir, "out.bin"),
            "--repeat", str(repeat)]
    if library is not None:
        args += ["--library", library[0], "--encoder", library[1]]
    for key, flag in (("embeddings", "--embeddings"), ("tokens", "--tokens"),
                      ("token_types", "--types"), ("lengths", "--lengths")):
        if key in inputs["files"]:
            args += [flag, os.path.join(casedir, inputs["files"][key])]
    e = dict(os.environ)
    e.update(extra_env or {})
    run(args, env=e)
    return np.fromfile(os.path.join(casedir, "out.bin"), dtype="<f4")


def compare(out, expected):
    """(max abs error, max error relative to max(1, |ref|), passed)."""
    exp = np.asarray(expected, dtype=np.float64).reshape(-1)
    out = np.asarray(out, dtype=np.float64).reshape(-1)
    if out.shape != exp.shape or not np.all(np.isfinite(out)):
        return float("inf"), float("inf"), False
    err = np.abs(out - exp)
    scaled = err / np.maximum(1.0, np.abs(exp))
    return float(err.max()), float(scaled.max()), bool(scaled.max() <= TOLERANCE)


def conformance_case(name, enc_path, encoder, workdir, seed=1, batch=2, seq=7,
                     lengths=None, dtype="F32", with_types=True, flags=(),
                     exe=None):
    """Runs one case; returns a result dict (and the harness, for reuse)."""
    spec = spec_of(enc_path, encoder)
    casedir = os.path.join(workdir, name)
    expected, weights, inputs = reference.make_case(spec, seed, batch, seq, lengths, dtype,
                                                    outdir=casedir, with_types=with_types)
    if exe is None:
        exe = build_model(enc_path, encoder, os.path.join(workdir, name + ".build"), flags)
    files = json.load(open(os.path.join(casedir, "inputs.json")))["inputs"]
    out = run_model(exe, casedir, {"batch": batch, "seq": seq,
                                   "files": {k: v["file"] for k, v in files.items()}},
                    spec, expected.size)
    abs_err, rel_err, ok = compare(out, expected)
    return {"name": name, "abs": abs_err, "rel": rel_err, "ok": ok,
            "max_ref": float(np.abs(expected).max()), "exe": exe, "out": out,
            "expected": expected, "inputs": inputs, "spec": spec, "casedir": casedir,
            "weights": weights}
