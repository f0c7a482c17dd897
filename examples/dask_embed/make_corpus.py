#!/usr/bin/env python3
"""A corpus of token sequences to embed: COUNT sequences of random lengths in
MIN..MAX, token ids in 1..VOCAB-1, stored as corpus.npz with `tokens` (int32,
every sequence one after the other) and `offsets` (int64 [COUNT + 1]:
sequence i is tokens[offsets[i]:offsets[i+1]]).

usage: make_corpus.py OUT.npz COUNT VOCAB MIN MAX [SEED]
"""
import sys

import numpy as np


def make_corpus(path, count, vocab, min_len, max_len, seed=0):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(min_len, max_len + 1, size=count)
    offsets = np.zeros(count + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    tokens = rng.integers(1, vocab, size=int(offsets[-1])).astype(np.int32)
    np.savez(path, tokens=tokens, offsets=offsets)
    return tokens, offsets


if __name__ == "__main__":
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__)
    args = [int(a) for a in sys.argv[2:]]
    tokens, offsets = make_corpus(sys.argv[1], *args)
    print("wrote %s: %d sequences, %d tokens" % (sys.argv[1], len(offsets) - 1, len(tokens)))
