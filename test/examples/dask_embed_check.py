#!/usr/bin/env python3
"""examples/dask_embed on a LocalCluster(n_workers=2, threads_per_worker=1,
processes=True): the embeddings equal a single-process run bit for bit,
each worker process loads the model once, and a worker killed mid-run (the
test kills one) loses no sequence and duplicates none. Prints the
throughput of both runs.

usage: dask_embed_check.py WORKDIR   (environment as in test/e2e/encc_case.py,
PYTHONPATH naming python/)
"""
import json
import os
import signal
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
sys.path.insert(0, os.path.join(ROOT, "examples", "dask_embed"))
import encc_case as ec  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "python"))
from enc_dev import reference  # noqa: E402
import dask_embed  # noqa: E402
from make_corpus import make_corpus  # noqa: E402

ENC = os.path.join(ROOT, "test", "e2e", "Inputs", "conformance.enc")


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    lib = os.path.join(work, "libbert_mean.so")
    ec.run([ec.env("ENCC"), ENC, "--emit=shared", "--encoder=bert_mean", "-o", lib,
            "--runtime-lib=" + ec.env("ENC_RUNTIME_LIB")])
    spec = ec.spec_of(ENC, "bert_mean")
    reference.make_case(spec, 3, 1, 4, outdir=os.path.join(work, "weights"))
    weights = os.path.join(work, "weights", "weights.safetensors")
    corpus = os.path.join(work, "corpus.npz")
    make_corpus(corpus, 6000, spec["vocab"], 4, spec["max_len"], seed=1)

    alone, alone_s = dask_embed.embed_locally(lib, weights, corpus, threads=1)

    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        # A run without faults, for the throughput; then one with a fault.
        clean = dask_embed.embed_corpus(client, lib, weights, corpus,
                                        os.path.join(work, "clean.npy"), threads=1)
        clean_out = np.load(os.path.join(work, "clean.npy"))
        pids = client.run(os.getpid)
        victim = sorted(pids.values())[0]
        killed = []

        def kill_one(done, total):
            if not killed and done >= total // 3:
                os.kill(victim, signal.SIGKILL)
                killed.append(done)

        out_path = os.path.join(work, "embeddings.npy")
        stats = dask_embed.embed_corpus(client, lib, weights, corpus, out_path,
                                        threads=1, on_batch_done=kill_one)
    out = np.load(out_path)
    same = all(o.shape == alone.shape and np.array_equal(o.view(np.uint32),
                                                         alone.view(np.uint32))
               for o in (clean_out, out))
    loads = stats["loads_per_process"]
    print("%d sequences, %d batches; killed worker pid %d after %d batches" % (
        stats["sequences"], stats["batches"], victim, killed[0] if killed else -1))
    print("%-4s both runs equal to one process bit for bit" % ("ok" if same else "FAIL"))
    written_once = stats["written_once"] and clean["written_once"]
    print("%-4s every sequence written exactly once" % ("ok" if written_once else "FAIL"))
    once = all(v == 1 for v in loads.values())
    print("%-4s each worker process loaded the model once (%d processes ran batches: "
          "%s)" % ("ok" if once else "FAIL", len(loads), sorted(loads.values())))
    n = stats["sequences"]
    print("throughput: one process, 1 thread: %.0f sequences/s; 2 workers x 1 thread: "
          "%.0f sequences/s (x%.2f); with one killed and restarted: %.0f sequences/s" % (
              n / alone_s, n / clean["seconds"], alone_s / clean["seconds"],
              n / stats["seconds"]))
    return 0 if same and written_once and once and killed else 1


if __name__ == "__main__":
    sys.exit(main())
