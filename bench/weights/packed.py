#!/usr/bin/env python3
"""Loading from a packed-weights file against loading from safetensors
(docs/weights.md#packed-weights-files), BERT-base (bert-base-uncased's
config, random weights), fp32 and int8.

For each precision: `encc pack` writes the .encw (timed, in its own fresh
process: that is the first load plus the write); then fresh processes time
NAME_load alone from the safetensors file and from the .encw, interleaved,
page cache warm, and load plus a first forward of 1 x 8 tokens (where a
mapped file's pages are faulted in). ENC_CACHE_DIR: the first load (which
packs and writes the cache) and the next (which maps it) against a plain
load. Memory: N processes hold the model at once and the sum of
their PSS (/proc/PID/smaps_rollup, which splits shared pages among their
sharers) is the host's memory for them, each having run one forward so that
every weight page is resident; what each further process adds is
(sum at N - sum at 1) / (N - 1), given against the weights' bytes.

usage: packed.py BUILD_DIR WORKDIR [RUNS] [PROCESSES]   (an idle machine)
"""
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(HERE))
sys.dont_write_bytecode = True
from enc_dev import reference  # noqa: E402
from enc_dev import safetensors_io  # noqa: E402
from enc_dev.cache_dir import settled_entries  # noqa: E402
import load_time  # noqa: E402


def pss_kib(pid):
    text = open("/proc/%d/smaps_rollup" % pid).read()
    return int(re.search(r"^Pss:\s+(\d+) kB", text, re.M).group(1))


def held_pss(exe, path, n):
    """Sum of PSS (KiB) of n processes holding the model loaded at once."""
    procs = []
    try:
        for _ in range(n):
            p = subprocess.Popen([exe, path, "hold"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
            procs.append(p)
            p.stdout.readline()  # loaded, and one forward run: every weight read
        return sum(pss_kib(p.pid) for p in procs)
    finally:
        for p in procs:
            p.stdin.close()
            p.wait(timeout=60)


def main():
    build_dir, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 11
    nproc = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    os.makedirs(work, exist_ok=True)
    encc = os.path.join(build_dir, "bin", "encc")
    hf_enc = os.path.join(work, "hf.enc")
    load_time.run([encc, "import", os.path.join(ROOT, "test", "import", "Inputs",
                                                "bert-base-uncased"), "-o", hf_enc])
    text = re.sub(r"checkpoint\s*=\s*\w+;", "checkpoint = enc;", open(hf_enc).read())
    name = re.search(r"^encoder\s+(\w+)", text, re.M).group(1)
    spec = None
    cases = {}
    for precision in ("fp32", "int8"):
        enc_path = os.path.join(work, precision + ".enc")
        open(enc_path, "w").write(text if precision == "fp32" else text.replace(
            "checkpoint = enc;", "checkpoint = enc; precision = int8;"))
        exe = load_time.build(encc, build_dir, enc_path, name,
                              os.path.join(work, precision + ".build"))
        cases[precision] = (enc_path, exe)
    import json
    spec = reference.normalize_spec(json.loads(load_time.run(
        [encc, cases["fp32"][0], "--emit=spec"]))["encoders"][0])
    rng = np.random.default_rng(7)
    w = {n: rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
         for n, shape in reference.weight_shapes(spec).items()}
    weights = os.path.join(work, "weights.safetensors")
    safetensors_io.write_sparse(weights, w)
    wbytes = os.path.getsize(weights)
    for precision, (enc_path, exe) in cases.items():
        packed = os.path.join(work, precision + ".encw")
        t0 = time.perf_counter()
        load_time.run([encc, "pack", enc_path, weights, "-o", packed])
        pack_s = time.perf_counter() - t0
        load_time.run([exe, weights])  # warm the page cache
        load_time.run([exe, packed])
        times = {"safetensors": [], "packed": []}
        first = {"safetensors": [], "packed": []}
        for _ in range(runs):
            for kind, path in (("safetensors", weights), ("packed", packed)):
                load_ms, forward_ms = map(float, load_time.run([exe, path, "forward"]).split())
                times[kind].append(load_ms)
                first[kind].append(load_ms + forward_ms)
        st, pk = statistics.median(times["safetensors"]), statistics.median(times["packed"])
        print("%s: weights %.0f MiB, packed file %.0f MiB; encc pack %.2f s (compile "
              "included)" % (precision, wbytes / 2**20, os.path.getsize(packed) / 2**20, pack_s))
        print("  load, %d fresh processes each: safetensors median %.1f ms (%.1f-%.1f), "
              "packed median %.2f ms (%.2f-%.2f): %.0fx"
              % (runs, st, min(times["safetensors"]), max(times["safetensors"]), pk,
                 min(times["packed"]), max(times["packed"]), st / pk))
        fst, fpk = statistics.median(first["safetensors"]), statistics.median(first["packed"])
        print("  load + first forward (1 x 8 tokens; the mapped pages fault in there): "
              "safetensors median %.1f ms, packed median %.1f ms: %.1fx" % (fst, fpk, fst / fpk))
        # ENC_CACHE_DIR: the first load packs and forks the process that
        # writes the cache, the next maps it; interleaved with plain loads.
        # Each: NAME_load, load + first forward, and the whole process (which
        # no longer waits for the write); and how long after the first
        # process's exit the entry was there.
        cache = os.path.join(work, "cache")
        rows = {"plain": [], "first": [], "next": []}
        write_ms = []

        def timed(env):
            t0 = time.perf_counter()
            r = subprocess.run([exe, weights, "forward"], env=env, check=True,
                               capture_output=True, text=True)
            wall = (time.perf_counter() - t0) * 1e3
            load_ms, forward_ms = map(float, r.stdout.split())
            return load_ms, load_ms + forward_ms, wall

        for _ in range(max(3, runs // 2)):
            subprocess.run(["rm", "-rf", cache], check=True)
            rows["plain"].append(timed(os.environ))
            env = dict(os.environ, ENC_CACHE_DIR=cache)
            rows["first"].append(timed(env))
            # The entry is written by a process forked from the first load,
            # which nothing waits for: let it finish before the next load.
            t0 = time.perf_counter()
            settled_entries(cache)
            write_ms.append((time.perf_counter() - t0) * 1e3)
            rows["next"].append(timed(env))
        subprocess.run(["rm", "-rf", cache], check=True)
        med = {k: [statistics.median(r[i] for r in v) for i in range(3)]
               for k, v in rows.items()}
        print("  ENC_CACHE_DIR, %d rounds (medians, ms): plain / first (packs, writes "
              "the cache) / next (maps it)" % len(rows["plain"]))
        for i, what in enumerate(("NAME_load", "load + first forward",
                                  "whole process")):
            print("    %-42s %8.1f / %8.1f / %8.2f   first/plain %.2fx"
                  % (what, med["plain"][i], med["first"][i], med["next"][i],
                     med["first"][i] / med["plain"][i]))
        print("    the entry written, after the first process's exit: median %.1f ms"
              % statistics.median(write_ms))
        for kind, path in (("safetensors", weights), ("packed", packed)):
            one = held_pss(exe, path, 1)
            many = held_pss(exe, path, nproc)
            added = (many - one) / (nproc - 1) * 1024
            print("  %-11s PSS: 1 process %.0f MiB, %d processes %.0f MiB; each further "
                  "process adds %.0f MiB = %.1f%% of the packed weights"
                  % (kind, one / 1024, nproc, many / 1024, added / 2**20,
                     100 * added / os.path.getsize(packed)))
    os.remove(weights)


if __name__ == "__main__":
    main()
