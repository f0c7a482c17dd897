"""Accuracy metrics of an output against the float64 reference
(docs/numerics.md): the largest error, per-token and pooled cosines, and the
reference output itself, for the tests and the benchmarks alike."""
import numpy as np

from enc_dev import reference
from enc_dev import safetensors_io as st


def metrics(out, ref, lengths=None):
    """out, ref [B,S,d]; only the valid rows of each sequence count.
    -> {"max_abs", "cos_min", "cos_med", "pooled_cos"} (pooled: the lowest
    over the batch of the cosine of the mean over valid rows)."""
    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    B, S, _ = ref.shape
    lengths = [S] * B if lengths is None else list(lengths)
    max_abs, cos, pooled = 0.0, [], []
    for i, L in enumerate(lengths):
        if not L:
            continue
        a, r = out[i, :L], ref[i, :L]
        if not np.isfinite(a).all():
            return {"max_abs": float("inf"), "cos_min": float("nan"), "cos_med": float("nan"),
                    "pooled_cos": float("nan")}
        max_abs = max(max_abs, float(np.abs(a - r).max()))
        cos += list(_cos(a, r))
        pooled.append(float(_cos(a.mean(axis=0)[None], r.mean(axis=0)[None])[0]))
    return {"max_abs": max_abs, "cos_min": float(min(cos)), "cos_med": float(np.median(cos)),
            "pooled_cos": float(min(pooled))}


def _cos(a, r):
    num = (a * r).sum(axis=-1)
    den = np.sqrt((a * a).sum(axis=-1) * (r * r).sum(axis=-1))
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0)


def reference_output(spec, weights_path, x, lengths=None):
    """float64 reference of the weights exactly as stored (float32)."""
    w, _ = st.read_safetensors(weights_path, as_float64=True)
    return reference.forward(spec, w, embeddings=x.astype(np.float64), lengths=lengths)


def fmt_cos(c):
    """A cosine close to 1 as 1 - c in scientific notation, so that 0.9999
    and 0.99999 read apart."""
    if c != c:
        return "nan"
    return "1-%.1e" % (1 - c) if c < 1 else "1"
