#!/usr/bin/env python3
"""The seed article's demonstration, drawn: where token 0 looks in each of
the toy's two heads, with positions and without, before and after swapping
tokens 0 and 1.

Each panel is one head; its bars give token 0's attention probabilities over
the five tokens (keys named by token, wherever the token sits): dark bars for
the original order, light bars after tokens 0 and 1 trade places. Without
positions the bars coincide (attention is permutation-equivariant: the
tokens are a bag); with sinusoidal positions they differ. The two heads
disagree on where token 0 looks, which is the point of having several.

usage: demo.py LIB WEIGHTS TOKENS.bin OUT.png
  LIB:     encc heads.enc --emit=shared -o libheads.so
  WEIGHTS, TOKENS.bin: examples/seed_toy/make_weights.py
"""
import sys

import numpy as np

import enc


def token0_rows(model, tokens):
    """Token 0's attention row per head, keys ordered by token identity, for
    the original order and with tokens 0 and 1 swapped."""
    order = np.array([1, 0, 2, 3, 4])  # position p holds token order[p]
    _, p = model.forward(tokens[None], attention=True)
    _, q = model.forward(tokens[order][None], attention=True)
    original = p[0, 0, :, 0, :]           # [heads, keys]: query at position 0
    swapped = q[0, 0, :, 1, :]            # token 0 now sits at position 1
    swapped = swapped[:, np.argsort(order)]  # keys back in token order
    return original, swapped


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    lib, weights, tokens_path, out = sys.argv[1:]
    tokens = np.fromfile(tokens_path, dtype="<f4").reshape(5, 8)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(7.2, 4.6), sharey=True, constrained_layout=True)
    keys = np.arange(5)
    for row, (encoder, title) in enumerate((("seed_toy", "with positions"),
                                            ("seed_toy_unordered", "without positions"))):
        model = enc.load(lib, weights, encoder=encoder)
        original, swapped = token0_rows(model, tokens)
        for h in range(2):
            print("%-18s head%d row0 %s  swapped %s  max|diff| %.3g" % (
                encoder, h, np.round(original[h], 3), np.round(swapped[h], 3),
                np.abs(original[h] - swapped[h]).max()))
            ax = axes[row][h]
            ax.bar(keys - 0.2, original[h], 0.4, color="#1f4e79", label="original order")
            ax.bar(keys + 0.2, swapped[h], 0.4, color="#9dc3e6", label="tokens 0, 1 swapped")
            ax.set_title("%s: head %d" % (title, h), fontsize=10)
            ax.set_xticks(keys)
            ax.set_xticklabels(["t%d" % k for k in keys])
            if h == 0:
                ax.set_ylabel("token 0 attends")
    axes[0][1].legend(fontsize=8, loc="upper right")
    fig.suptitle("Where token 0 looks: heads disagree; without positions, order does not matter",
                 fontsize=10)
    fig.savefig(out, dpi=80)
    print("wrote %s" % out)


if __name__ == "__main__":
    main()
