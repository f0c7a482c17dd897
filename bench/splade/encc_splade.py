#!/usr/bin/python3
"""encc's side of bench/splade/run.py: enc.Model.forward over a batch of
token ids (all full length), ROUNDS times after one warm run; prints the
median milliseconds per forward and the process's peak RSS (VmHWM).

  encc_splade.py LIBRARY ENCODER WEIGHTS IDS.i32 BATCH SEQ THREADS ROUNDS [OUT.f32]
"""
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import enc  # noqa: E402


def main():
    lib, encoder, weights, ids_path, batch, seq, threads, rounds = sys.argv[1:9]
    out = sys.argv[9] if len(sys.argv) > 9 else None
    enc.set_num_threads(int(threads))
    m = enc.load(lib, weights, encoder)
    ids = np.fromfile(ids_path, dtype="<i4").reshape(int(batch), int(seq))
    y = m.forward(ids)  # warm: pool threads, pages
    times = []
    for _ in range(int(rounds)):
        t0 = time.perf_counter()
        y = m.forward(ids)
        times.append((time.perf_counter() - t0) * 1e3)
    # VmHWM, not ru_maxrss: the latter survives exec, so it would report the
    # parent's peak (run.py holds torch and the weights).
    with open("/proc/self/status") as f:
        peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) // 1024
    print("encc %sx%s, %s threads: forward %.3f ms (median of %s rounds), peak RSS %d MiB" % (
        batch, seq, threads, statistics.median(times), rounds, peak))
    if out:
        y.astype("<f4").tofile(out)


if __name__ == "__main__":
    sys.exit(main())
