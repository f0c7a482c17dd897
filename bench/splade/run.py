"""SPLADE: encc (a compiled BERT-base-shaped SPLADE model,
bench/models/splade_bert.enc, its max-pool fused into the decoder) against
ONNX Runtime (onnxruntime-node, CPU) on the same random weights and token
ids, batch x seq (default 8 x 128), in fp32 (or int8: ONNX Runtime's
DynamicQuantizeMatMul graph of bench/ort_int8.py against precision = int8).

The ONNX graph is the same formulas in torch ops from input ids
(bench/text_embed/run.py's IdsEncoder blocks, then BertLMPredictionHead's
transform and decoder, log1p(relu(.)) times the attention mask and the max
over tokens, as sentence-transformers' SpladePooling), exported with
torch.onnx.export: ONNX Runtime materialises the [batch, seq, vocab] logits.
The outputs of both are compared first (max |diff|), then each side runs
ROUNDS times, interleaved, each run reporting the median of its own inner
rounds and its peak RSS; the ratio is taken per pair and its median printed.

  /usr/bin/python3 bench/splade/run.py [--build build] [--threads 2]
      [--precision fp32|int8] [--batch 8] [--seq 128] [--rounds 5] [--inner 5]
"""
import os
import re
import statistics
import subprocess
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench", "text_embed"))
import run as text_embed  # noqa: E402

ENC = os.path.join(ROOT, "bench", "models", "splade_bert.enc")
PY = "/usr/bin/python3"


class Splade(text_embed.IdsEncoder):
    """The blocks of IdsEncoder, then BertForMaskedLM's head and
    SpladePooling (max)."""

    def __init__(self, spec, weights):
        super().__init__(dict(spec, head="none", pooling="none"), weights)
        self.eps, self.d = spec["eps"], spec["d_model"]
        for n in ("head.transform.weight", "head.transform.bias",
                  "head.transform_norm.weight", "head.transform_norm.bias",
                  "head.decoder.weight", "head.decoder.bias"):
            self.register_buffer(n.replace(".", "_"), torch.from_numpy(
                np.ascontiguousarray(weights[n], dtype=np.float32)))

    def forward(self, input_ids, attention_mask, token_type_ids):
        F = torch.nn.functional
        S = input_ids.shape[1]
        x = (self.embed_tokens[input_ids] + self.embed_types[token_type_ids]
             + self.embed_positions[:S])
        x = self.blocks(x, attention_mask == 0)
        h = F.gelu(F.linear(x, self.head_transform_weight, self.head_transform_bias))
        h = F.layer_norm(h, (self.d,), self.head_transform_norm_weight,
                         self.head_transform_norm_bias, self.eps)
        logits = F.linear(h, self.head_decoder_weight, self.head_decoder_bias)
        w = torch.log1p(torch.relu(logits)) * attention_mask.to(logits.dtype)[:, :, None]
        return torch.max(w, dim=1).values


def main():
    ap = text_embed.peer_arguments(__doc__, inner=5)
    ap.add_argument("--precision", choices=("fp32", "int8"), default="fp32")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=128)
    a = ap.parse_args()
    text_embed.ensure_node_peer()
    work = os.path.join(a.build, "bench-splade")
    os.makedirs(work, exist_ok=True)
    encoder = "splade_bert" if a.precision == "fp32" else "splade_bert_int8"
    spec, lib, weights_path, onnx_path = text_embed.peer_model(
        a.build, ENC, encoder, work, Splade, "weights", a.precision)
    rng = np.random.default_rng(3)
    tokens = rng.integers(1000, spec["vocab"], size=(a.batch, a.seq)).astype("<i4")
    ids_path = os.path.join(work, "ids.i32")
    tokens.tofile(ids_path)
    shape = [str(a.batch), str(a.seq)]
    ours = [PY, os.path.join(HERE, "encc_splade.py"), lib, encoder, weights_path, ids_path,
            *shape, str(a.threads)]
    theirs = ["node", os.path.join(HERE, "ort_splade.js"), onnx_path, ids_path, *shape,
              str(a.threads)]
    subprocess.run(ours + ["1", os.path.join(work, "encc.f32")], check=True, capture_output=True)
    subprocess.run(theirs + ["1", os.path.join(work, "ort.f32")], check=True, capture_output=True)
    x = np.fromfile(os.path.join(work, "encc.f32"), dtype="<f4").reshape(a.batch, -1)
    y = np.fromfile(os.path.join(work, "ort.f32"), dtype="<f4").reshape(a.batch, -1)
    cos = min(float(np.dot(u, v) / max(np.linalg.norm(u) * np.linalg.norm(v), 1e-30))
              for u, v in zip(x.astype(np.float64), y.astype(np.float64)))
    print("CPU: %s; %d threads; %s; SPLADE, BERT-base shape, %d x %d tokens, vocab %d" % (
        text_embed.cpu_name(), a.threads, a.precision, a.batch, a.seq, spec["vocab"]))
    print("same output: max |encc - ORT| = %.2e (max weight %.2f), min row cosine %.6f, "
          "terms > 0: encc %d, ORT %d" % (np.abs(x - y).max(), np.abs(y).max(), cos,
                                          int((x > 0).sum()), int((y > 0).sum())))
    ratios, mem = [], {"encc": [], "ort": []}
    for r in range(a.rounds):
        pair = {}
        for who, cmd in (("encc", ours), ("ort", theirs))[:: 1 if r % 2 == 0 else -1]:
            out = subprocess.run(cmd + [str(a.inner)], check=True, capture_output=True,
                                 text=True).stdout
            print(out.strip())
            pair[who] = float(re.search(r"forward ([0-9.]+) ms", out).group(1))
            mem[who].append(int(re.search(r"peak RSS ([0-9]+) MiB", out).group(1)))
        ratios.append(pair["ort"] / pair["encc"])
    print("encc SPLADE speed / ORT %s: %s (median %.2f); peak RSS MiB: encc %d, ORT %d" % (
        a.precision, " ".join("%.2f" % v for v in ratios), statistics.median(ratios),
        statistics.median(mem["encc"]), statistics.median(mem["ort"])))


if __name__ == "__main__":
    sys.exit(main())
