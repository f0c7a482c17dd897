#!/usr/bin/env python3
"""Embeds a corpus of token sequences with an encc model on a dask.distributed
cluster, one pooled vector per sequence, written in corpus order.

- Each worker process loads the model once (a per-process cache; a worker
  that dies and is restarted loads it again), never once per task.
- Sequences of similar length are batched together: the corpus is sorted by
  length and cut into batches of at most --batch-tokens padded tokens, so
  padding is small and each batch is one forward call.
- The driver writes each batch's vectors at its sequences' rows of a .npy
  (a memory map), whatever order batches finish in. A batch whose worker
  dies is recomputed elsewhere by Dask; each is written once.

The same code runs on a LocalCluster (--local N) or a running cluster
(--scheduler tcp://host:8786): every worker must see the library and the
weights at the same paths.

usage: dask_embed.py LIB WEIGHTS CORPUS.npz OUT.npy (--local N | --scheduler ADDR)
                     [--batch-tokens T] [--threads-per-model K]
"""
import argparse
import os
import threading
import time
from typing import Dict, List, Tuple

import numpy as np

_models: Dict[Tuple[str, str], object] = {}
_lock = threading.Lock()
loads_in_this_process = 0


def _model(library, weights, threads):
    """This process's model: loaded on first use, then reused."""
    global loads_in_this_process
    import enc
    with _lock:
        m = _models.get((library, weights))
        if m is None:
            enc.set_num_threads(threads)
            m = _models[(library, weights)] = enc.load(library, weights)
            loads_in_this_process += 1
        return m


def embed_batch(library, weights, threads, batch_id, tokens, lengths):
    """One batch: tokens [b, s] padded, lengths [b]. Returns (batch_id, the
    vectors [b, d_model], this process's pid and how many times it loaded
    the model)."""
    m = _model(library, weights, threads)
    return batch_id, m.forward(tokens, lengths=lengths), os.getpid(), loads_in_this_process


def make_batches(offsets, batch_tokens, max_len) -> List[np.ndarray]:
    """The sequence indices of each batch: sorted by length, cut where the
    padded size (rows x longest) would exceed batch_tokens."""
    lengths = np.diff(offsets)
    order = np.argsort(lengths, kind="stable")
    batches, start = [], 0
    for i in range(1, len(order) + 1):
        if i == len(order) or (i - start + 1) * lengths[order[i]] > batch_tokens:
            batches.append(order[start:i])
            start = i
    too_long = lengths.max(initial=0)
    if too_long > max_len:
        raise ValueError("a sequence of %d tokens exceeds the model's max_len %d"
                         % (too_long, max_len))
    return batches


def batch_arrays(tokens, offsets, indices):
    lengths = (offsets[indices + 1] - offsets[indices]).astype(np.int32)
    padded = np.zeros((len(indices), int(lengths.max())), np.int32)
    for row, i in enumerate(indices):
        padded[row, :lengths[row]] = tokens[offsets[i]:offsets[i + 1]]
    return padded, lengths


def embed_corpus(client, library, weights, corpus, out_path, batch_tokens=4096,
                 threads=1, on_batch_done=None):
    """Embeds `corpus` (make_corpus.py's .npz) on `client`'s cluster into
    out_path (float32 [sequences, d_model]). Returns statistics."""
    import enc
    from distributed import as_completed
    library, weights = os.path.abspath(library), os.path.abspath(weights)
    probe = enc.load(library, weights)
    if probe.pooling == "none":
        raise ValueError("%s is not pooled: one vector per sequence needs pooling "
                         "cls or mean" % probe.name)
    data = np.load(corpus)
    tokens, offsets = data["tokens"], data["offsets"]
    n = len(offsets) - 1
    batches = make_batches(offsets, batch_tokens, probe.max_len)
    out = np.lib.format.open_memmap(out_path, mode="w+", dtype=np.float32,
                                    shape=(n, probe.d_model))
    written = np.zeros(n, np.int32)
    t0 = time.perf_counter()
    futures = []
    for b, indices in enumerate(batches):
        padded, lengths = batch_arrays(tokens, offsets, indices)
        futures.append(client.submit(embed_batch, library, weights, threads, b, padded,
                                     lengths, key="embed-batch-%d" % b, pure=False))
    loads = {}
    for done, future in enumerate(as_completed(futures), 1):
        b, vectors, pid, count = future.result()
        out[batches[b]] = vectors
        written[batches[b]] += 1
        loads[pid] = max(loads.get(pid, 0), count)
        future.release()
        if on_batch_done is not None:
            on_batch_done(done, len(batches))
    out.flush()
    seconds = time.perf_counter() - t0
    return {"sequences": n, "tokens": int(offsets[-1]), "batches": len(batches),
            "seconds": seconds, "written_once": bool(np.all(written == 1)),
            "loads_per_process": loads}


def embed_locally(library, weights, corpus, batch_tokens=4096, threads=0):
    """The same batches in this process alone: the single-machine baseline."""
    import enc
    enc.set_num_threads(threads)
    m = enc.load(library, weights)
    data = np.load(corpus)
    tokens, offsets = data["tokens"], data["offsets"]
    out = np.zeros((len(offsets) - 1, m.d_model), np.float32)
    t0 = time.perf_counter()
    for indices in make_batches(offsets, batch_tokens, m.max_len):
        padded, lengths = batch_arrays(tokens, offsets, indices)
        out[indices] = m.forward(padded, lengths=lengths)
    return out, time.perf_counter() - t0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("library")
    p.add_argument("weights")
    p.add_argument("corpus")
    p.add_argument("out")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--local", type=int, metavar="N",
                       help="start a LocalCluster of N single-threaded worker processes")
    where.add_argument("--scheduler", metavar="ADDR", help="a running scheduler")
    p.add_argument("--batch-tokens", type=int, default=4096)
    p.add_argument("--threads-per-model", type=int, default=1,
                   help="encc threads in each worker process (default 1)")
    args = p.parse_args()
    from distributed import Client, LocalCluster
    if args.local:
        cluster = LocalCluster(n_workers=args.local, threads_per_worker=1, processes=True)
        client = Client(cluster)
    else:
        client = Client(args.scheduler)
    stats = embed_corpus(client, args.library, args.weights, args.corpus, args.out,
                         args.batch_tokens, args.threads_per_model)
    print("%d sequences (%d tokens) in %d batches: %.2f s, %.0f sequences/s; "
          "model loads per worker process: %s" % (
              stats["sequences"], stats["tokens"], stats["batches"], stats["seconds"],
              stats["sequences"] / stats["seconds"], sorted(stats["loads_per_process"].values())))
    client.close()


if __name__ == "__main__":
    main()
