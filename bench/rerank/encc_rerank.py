#!/usr/bin/python3
"""encc's side of bench/rerank/run.py: enc.Model.rerank (the package's
tokenizer, pairs batched by length, the compiled classifier head) on one
query and its passages, ROUNDS times; prints the median milliseconds per
rerank call.

  encc_rerank.py LIBRARY ENCODER WEIGHTS TOKENIZER QUERY_AND_PASSAGES THREADS ROUNDS [OUT.f32]
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
    lib, encoder, weights, tok_path, texts_path, threads, rounds = sys.argv[1:8]
    out = sys.argv[8] if len(sys.argv) > 8 else None
    enc.set_num_threads(int(threads))
    m = enc.load(lib, weights, encoder)
    tok = enc.Tokenizer.from_file(tok_path)
    tok.enable_truncation(m.max_len)
    lines = open(texts_path, encoding="utf-8").read().splitlines()
    query, docs = lines[0], lines[1:]
    m.rerank(query, docs, tokenizer=tok)  # warm: pool threads, pages
    times = []
    for _ in range(int(rounds)):
        t0 = time.perf_counter()
        ranked = m.rerank(query, docs, tokenizer=tok)
        times.append((time.perf_counter() - t0) * 1e3)
    print("encc %d passages, %s threads: rerank %.3f ms/query (median of %s rounds)" % (
        len(docs), threads, statistics.median(times), rounds))
    if out:
        scores = np.zeros(len(docs), np.float32)
        for i, s in ranked:
            scores[i] = s
        scores.tofile(out)


if __name__ == "__main__":
    sys.exit(main())
