"""Attention maps as pictures: one block's heads as a grid of heatmaps.

    python3 -m enc.plot LIB WEIGHTS (--tokens 101,2023,... | --embeddings X.npy)
                        [--block N] [--labels a,b,c] [--encoder NAME] -o maps.png

draws, for the first sequence of the input, each head's probabilities
``P[block, 0, head, i, j]`` (row i: where query token i looks; column j: the
key) with the tokens (or their positions) on the axes, and writes a PNG.
From Python: :func:`plot_heads` draws into a matplotlib figure.
"""
import argparse
import math
import sys
from typing import Optional, Sequence

import numpy as np

from ._library import Error
from ._model import Model, load

__all__ = ["plot_heads", "main"]


def plot_heads(probs: np.ndarray, labels: Optional[Sequence[str]] = None,
               title: str = "", cols: Optional[int] = None):
    """A matplotlib Figure with one heatmap per head of ``probs``
    ``[heads, seq_len, seq_len]`` (one block, one sequence), ``labels`` on
    both axes (default: the positions 0..seq_len-1)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    probs = np.asarray(probs)
    if probs.ndim != 3 or probs.shape[1] != probs.shape[2]:
        raise ValueError("probs has shape %s; expected [heads, seq_len, seq_len]"
                         % (probs.shape,))
    heads, n = probs.shape[0], probs.shape[1]
    labels = [str(i) for i in range(n)] if labels is None else [str(t) for t in labels]
    if len(labels) != n:
        raise ValueError("%d labels for %d tokens" % (len(labels), n))
    cols = cols or min(heads, 4)
    rows = math.ceil(heads / cols)
    cell = max(2.2, 0.28 * n + 1.0)
    fig, axes = plt.subplots(rows, cols, figsize=(cell * cols + 0.8, cell * rows + 0.6),
                             squeeze=False, constrained_layout=True)
    image = None
    # One colour scale for every head (so heads compare), up to the largest.
    vmax = float(probs.max()) if probs.size and probs.max() > 0 else 1.0
    for h in range(rows * cols):
        ax = axes[h // cols][h % cols]
        if h >= heads:
            ax.axis("off")
            continue
        image = ax.imshow(probs[h], vmin=0.0, vmax=vmax, cmap="viridis")
        ax.set_title("head %d" % h, fontsize=10)
        ax.set_xticks(range(n))
        ax.set_yticks(range(n))
        small = 8 if n <= 16 else 6
        ax.set_xticklabels(labels, rotation=90, fontsize=small)
        ax.set_yticklabels(labels, fontsize=small)
        ax.set_xlabel("key", fontsize=9)
        if h % cols == 0:
            ax.set_ylabel("query", fontsize=9)
    fig.colorbar(image, ax=axes, shrink=0.8, label="attention probability")
    if title:
        fig.suptitle(title)
    return fig


def _parse(argv):
    p = argparse.ArgumentParser(
        prog="python3 -m enc.plot",
        description="Draw one block's attention heads, for the first sequence of "
                    "the input, as a grid of heatmaps in a PNG.")
    p.add_argument("library", help="a shared library of encc --emit=shared")
    p.add_argument("weights", help="its safetensors weights")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--tokens", help="comma-separated token ids (vocab > 0)")
    src.add_argument("--embeddings", help="a .npy of float embeddings [seq_len, d_model]")
    p.add_argument("--block", type=int, default=0, help="the block to draw (default 0)")
    p.add_argument("--labels", help="comma-separated axis labels (default: the "
                   "token ids, or the positions)")
    p.add_argument("--encoder", help="the encoder, if the library holds several")
    p.add_argument("--title", default=None, help="the figure's title")
    p.add_argument("--dpi", type=int, default=100)
    p.add_argument("-o", "--output", required=True, help="the PNG to write")
    return p.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parse(argv)
    try:
        model: Model = load(args.library, args.weights, encoder=args.encoder)
        if args.tokens is not None:
            try:
                ids = [int(t) for t in args.tokens.split(",") if t.strip()]
            except ValueError:
                raise Error("input", "--tokens: %r is not a comma-separated list of "
                            "integers" % args.tokens) from None
            x = np.asarray([ids], dtype=np.int64)
            labels = [str(t) for t in ids]
        else:
            e = np.load(args.embeddings)
            x = e[None] if e.ndim == 2 else e
            labels = [str(i) for i in range(x.shape[1])]
        if args.labels is not None:
            labels = args.labels.split(",")
        if not 0 <= args.block < model.blocks:
            raise Error("input", "--block %d: the model has blocks 0..%d"
                        % (args.block, model.blocks - 1))
        _, probs = model.forward(x, attention=True)
        fig = plot_heads(probs[args.block, 0], labels,
                         args.title if args.title is not None else
                         "%s, block %d" % (model.name, args.block))
        fig.savefig(args.output, dpi=args.dpi)
    except (Error, ValueError, OSError) as e:
        print("enc.plot: error: %s" % e, file=sys.stderr)
        return 1
    print("wrote %s" % args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
