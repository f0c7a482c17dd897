#!/usr/bin/env python3
"""Packed-weights files (docs/weights.md#packed-weights-files), written by
`encc pack` and by enc.pack, loaded by enc.load:

- for every kind of slot and precision (fp32 with a fused QKV, a gated FFN
  with RoPE, int8, bf16), the model loaded from the packed file gives the
  safetensors model's output bit for bit;
- a file packed for another model, another CPU target (ENC_TARGET) or
  another format version is refused with a message that names what differs;
- a truncated file, a flipped header or section-table byte, and a file
  that is not one are refused; a flipped weight byte loads (the checksums
  of the sections are not read by default) and runs without a crash, and
  is refused under ENC_VERIFY_PACKED=1;
- a packed file is not accepted as the source of another packing;
- ENC_CACHE_DIR: the first load writes a packed copy, a later process maps
  it (seen in /proc/self/maps), and both give the same output; the copy is
  written behind the load by a forked process nothing waits for (it
  appears whole, and no temporary file stays), or inside the load with
  ENC_CACHE_SYNC=1; a load that fails while packing leaves no entry.

usage: test_packed.py WORKDIR   (environment as in test/e2e/encc_case.py,
PYTHONPATH naming python/)
"""
import os
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
E2E = os.path.join(HERE, "..", "e2e")
sys.path.insert(0, E2E)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import encc_case as ec  # noqa: E402
from enc_dev import reference  # noqa: E402
from enc_dev.cache_dir import settled_entries  # noqa: E402
from enc_dev import safetensors_io as st  # noqa: E402

import enc  # noqa: E402
from enc_dev.checks import check, finish  # noqa: E402

ENC = os.path.join(HERE, "Inputs", "packed.enc")


def load_error(lib, path, **env):
    """The enc.Error message of loading `path`, or None; in a child process
    when `env` sets variables the runtime reads once per process."""
    if env:
        code = ("import enc, sys\n"
                "try:\n    enc.load(sys.argv[1], sys.argv[2])\n"
                "except enc.Error as e:\n    print(e)\n")
        out = subprocess.run([sys.executable, "-c", code, lib, path],
                             capture_output=True, text=True,
                             env=dict(os.environ, **env))
        return out.stdout.strip() or None
    try:
        enc.load(lib, path).close()
        return None
    except enc.Error as e:
        return str(e)


def build(work, name, seed):
    spec = ec.spec_of(ENC, name)
    casedir = os.path.join(work, name)
    _, _, inputs = reference.make_case(spec, seed, 2, 9, [9, 5], outdir=casedir)
    lib = os.path.join(work, "lib%s.so" % name)
    ec.run([ec.env("ENCC"), ENC, "--emit=shared", "--encoder=" + name, "-o", lib,
            "--runtime-lib=" + ec.env("ENC_RUNTIME_LIB")])
    return lib, os.path.join(casedir, "weights.safetensors"), inputs


def forward(model, inputs):
    return model.forward(inputs["tokens"], lengths=inputs.get("lengths"),
                         token_types=inputs.get("token_types"))


def mutated(src, dst, at, data=None, cut=None):
    blob = bytearray(open(src, "rb").read())
    if cut is not None:
        blob = blob[:cut]
    if data is not None:
        blob[at:at + len(data)] = data
    open(dst, "wb").write(bytes(blob))
    return dst


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    built = {}
    for seed, name in enumerate(("packed_bert", "packed_gated", "packed_int8",
                                 "packed_bf16", "packed_other")):
        built[name] = build(work, name, seed + 1)

    # The same output from the packed file as from the safetensors file.
    for name in ("packed_bert", "packed_gated", "packed_int8", "packed_bf16"):
        lib, weights, inputs = built[name]
        packed = os.path.join(work, name + ".encw")
        ec.run([ec.env("ENCC"), "pack", ENC, weights, "-o", packed,
                "--encoder=" + name, "--runtime-lib=" + ec.env("ENC_RUNTIME_LIB")])
        with enc.load(lib, weights) as a, enc.load(lib, packed) as b:
            ya, yb = forward(a, inputs), forward(b, inputs)
        same = ya.shape == yb.shape and np.array_equal(ya.view(np.uint32),
                                                       yb.view(np.uint32))
        check(same, "%s: encc pack -> %d bytes; forward from it == from "
              "safetensors, bit for bit: %s" % (name, os.path.getsize(packed), same))

    lib, weights, inputs = built["packed_bert"]
    good = os.path.join(work, "packed_bert.encw")
    again = os.path.join(work, "again.encw")
    enc.pack(lib, weights, again)
    check(open(again, "rb").read() == open(good, "rb").read(),
          "enc.pack writes the same bytes as encc pack")
    left = [f for f in os.listdir(work) if ".tmp." in f]
    check(not left, "no temporary file left behind: %s" % left)

    def refused(what, msg, *needles):
        ok = msg is not None and all(n in msg for n in needles)
        check(ok, "%s: refused: %s" % (what, msg))

    other_lib = built["packed_other"][0]
    refused("another model's packed file", load_error(other_lib, good),
            "packed for another model", "slot")
    native = load_error(lib, good, ENC_VERIFY_PACKED="1")
    check(native is None, "ENC_VERIFY_PACKED=1 verifies every section: %s" % native)
    for target in ("avx2", "sse4"):
        msg = load_error(lib, good, ENC_TARGET=target)
        if msg is not None:
            refused("ENC_TARGET=%s" % target, msg, "packed for target", "this process runs")
            break
    else:
        check(False, "a lower ENC_TARGET refuses the file")
    size = os.path.getsize(good)
    refused("truncated", load_error(lib, mutated(good, work + "/t.encw", 0, cut=size - 64)),
            "the file has %d" % (size - 64))
    refused("header byte flipped (model hash)",
            load_error(lib, mutated(good, work + "/h.encw", 32, b"\x01")),
            "header's checksum")
    refused("format version 9", load_error(lib, mutated(good, work + "/v.encw", 8, b"\x09")),
            "format version 9")
    refused("section table byte flipped",
            load_error(lib, mutated(good, work + "/s.encw", 96 + 20, b"\xff")),
            "section table's checksum")
    # Without the magic it is read as safetensors, whose parser refuses it.
    refused("not a packed file", load_error(lib, mutated(good, work + "/m.encw", 0, b"ENCX")),
            "m.encw: header length", "exceeds the file size")
    refused("empty file", load_error(lib, mutated(good, work + "/e.encw", 0, cut=0)),
            "e.encw: not a safetensors file: 0 bytes")
    flipped = mutated(good, work + "/w.encw", size - 200, b"\x55\xaa\x55\xaa")
    try:
        with enc.load(lib, flipped) as m:
            y = forward(m, inputs)
        check(y.shape[0] == 2, "a flipped weight byte loads and runs (shape %s)"
              % (y.shape,))
    except enc.Error as e:
        check(False, "a flipped weight byte loads and runs: %s" % e)
    refused("a flipped weight byte under ENC_VERIFY_PACKED=1",
            load_error(lib, flipped, ENC_VERIFY_PACKED="1"),
            "section's checksum does not match")
    try:
        enc.pack(lib, good, work + "/x.encw")
        check(False, "packing from a packed file is refused")
    except enc.Error as e:
        refused("packing from a packed file", str(e), "already a packed-weights file")

    # ENC_CACHE_DIR: the first load writes the packed copy, the next maps it;
    # both give the safetensors model's output.
    cache = os.path.join(work, "cache")
    code = ("import enc, sys, numpy as np\n"
            "m = enc.load(sys.argv[1], sys.argv[2])\n"
            "t = np.load(sys.argv[3])\n"
            "y = m.forward(t['tokens'], lengths=t['lengths'], token_types=t['token_types'])\n"
            "mapped = sys.argv[4] in open('/proc/self/maps').read()\n"
            "print(y.view(np.uint32).sum(dtype=np.uint64), mapped)\n")
    npz = os.path.join(os.path.dirname(weights), "inputs.npz")
    with enc.load(lib, weights) as m:
        want = str(forward(m, inputs).view(np.uint32).sum(dtype=np.uint64))

    runs, files = [], []
    for _ in range(2):
        runs.append(subprocess.run([sys.executable, "-c", code, lib, weights, npz, cache],
                                   capture_output=True, text=True,
                                   env=dict(os.environ, ENC_CACHE_DIR=cache)))
        # The entry is written behind the first process: wait for it.
        files = settled_entries(cache)
    outs = [r.stdout.split() for r in runs]
    check(len(files) == 1 and files[0].endswith(".encw") and outs[0] == [want, "False"]
          and outs[1] == [want, "True"],
          "ENC_CACHE_DIR: the first load writes %s and reads safetensors, the second maps "
          "it; both outputs equal: %s %s" % (files, outs, [r.stderr[-300:] for r in runs]))

    # The entry is written behind the load by a forked process that nothing
    # waits for: it appears, whole, after the loading process has exited
    # (polled, at most 60 s), and no temporary file stays; a forked child of
    # the caller closing its copy changes nothing. ENC_CACHE_SYNC=1 writes it
    # inside the load: the entry is there when the load returns.
    close_code = ("import enc, os, signal, sys, numpy as np\n"
                  "if os.environ.get('IGNORE_SIGCHLD'):\n"
                  "    signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"
                  "m = enc.load(sys.argv[1], sys.argv[2])\n"
                  "at_load = sorted(os.listdir(sys.argv[4]))\n"
                  "t = np.load(sys.argv[3])\n"
                  "y = m.forward(t['tokens'], lengths=t['lengths'], token_types=t['token_types'])\n"
                  "pid = os.fork()\n"
                  "if pid == 0:\n"
                  "    m.close()\n"
                  "    os._exit(0)\n"
                  "try:\n"
                  "    _, status = os.waitpid(pid, 0)\n"
                  "except ChildProcessError:  # reaped by the kernel: SIGCHLD ignored\n"
                  "    status = 0\n"
                  "m.close()\n"
                  "print(y.view(np.uint32).sum(dtype=np.uint64), status, len(at_load))\n")

    # A caller that ignores SIGCHLD (its children reaped by the kernel) still
    # gets its entry written, whole.
    for mode, ignore in (("0", ""), ("1", ""), ("0", "1")):
        fresh = os.path.join(work, "cache_sync" + mode + ignore)
        r = subprocess.run([sys.executable, "-c", close_code, lib, weights, npz, fresh],
                           capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, ENC_CACHE_DIR=fresh, ENC_CACHE_SYNC=mode,
                                    IGNORE_SIGCHLD=ignore))
        out = r.stdout.split()
        entries = settled_entries(fresh) if r.returncode == 0 else []
        mapped = subprocess.run([sys.executable, "-c", code, lib, weights, npz, fresh],
                                capture_output=True, text=True,
                                timeout=300, env=dict(os.environ, ENC_CACHE_DIR=fresh))
        check(r.returncode == 0 and len(out) == 3 and out[0] == want and out[1] == "0"
              and (mode == "0" or out[2] == "1")
              and len(entries) == 1 and entries[0].endswith(".encw")
              and mapped.stdout.split() == [want, "True"],
              "ENC_CACHE_SYNC=%s%s: the entry is written (inside the load when 1), whole, "
              "with no temporary file left, and maps: %s %s %s %s"
              % (mode, ", SIGCHLD ignored" if ignore else "", out, entries,
                 mapped.stdout.split(), (r.stderr + mapped.stderr)[-300:]))

    # A load that fails while it packs (a weight int8 cannot scale, late in
    # the file) drops the entry its writer had begun: no file is left.
    lib8, weights8, _ = built["packed_int8"]
    w = reference.load_weights(weights8)
    w["blocks.1.ffn.down.weight"] = np.array(w["blocks.1.ffn.down.weight"], dtype=np.float32)
    w["blocks.1.ffn.down.weight"][0, 0] = np.nan
    nan_path = os.path.join(work, "nan.safetensors")
    st.write_safetensors(nan_path, w, "F32")
    dropped = os.path.join(work, "cache_dropped")
    msg = load_error(lib8, nan_path, ENC_CACHE_DIR=dropped)
    left = sorted(os.listdir(dropped)) if os.path.isdir(dropped) else []
    check(msg is not None and "blocks.1.ffn.down.weight" in msg and left == [],
          "ENC_CACHE_DIR: a load that fails while packing leaves no entry: %r %s"
          % (msg, left))

    return finish()


if __name__ == "__main__":
    sys.exit(main())
