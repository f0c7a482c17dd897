#!/usr/bin/env python3
"""What enc.Model.forward costs beyond NAME_forward called from C.

Times the same library, weights and input both ways, interleaved round by
round (forward_timer.c from C, then enc from Python), and prints the median
per-call time of each and their difference. Run inside `tools/quiet bench`
or an otherwise idle machine.

usage: python_overhead.py LIB WEIGHTS BATCH SEQ REPS ROUNDS FORWARD_TIMER
(PYTHONPATH naming python/)
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import enc


def main():
    lib, weights = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    batch, seq, reps, rounds = (int(v) for v in sys.argv[3:7])
    timer = sys.argv[7]
    m = enc.load(lib, weights)
    rng = np.random.default_rng(1)
    if m.vocab > 0:
        x = rng.integers(0, m.vocab, size=(batch, seq)).astype(np.int32)
    else:
        x = rng.standard_normal((batch, seq, m.d_model)).astype(np.float32)
    with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
        x.tofile(f)
    c_ns, py_ns = [], []
    try:
        for _ in range(rounds):
            out = subprocess.run([timer, lib, weights, f.name, str(batch), str(seq),
                                  str(reps), "3"], check=True, capture_output=True,
                                 text=True).stdout.split()
            c_ns.append(float(out[-1]))  # the last of 3: warm
            for _ in range(max(1, reps // 10)):
                m.forward(x)
            t0 = time.perf_counter_ns()
            for _ in range(reps):
                m.forward(x)
            py_ns.append((time.perf_counter_ns() - t0) / reps)
    finally:
        os.unlink(f.name)
    c, py = statistics.median(c_ns), statistics.median(py_ns)
    print("%s b%d s%d: C %.1f us/call, Python %.1f us/call, overhead %.1f us (%.2f%%) "
          "[medians of %d rounds x %d calls]" % (
              m.name, batch, seq, c / 1e3, py / 1e3, (py - c) / 1e3, 100 * (py - c) / c,
              rounds, reps))


if __name__ == "__main__":
    main()
