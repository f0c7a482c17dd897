"""Text to embedding: encc's compiled-in tokenizer and forward
(text_embed_bench.c, all_minilm_l6_v2_embed_text) against Hugging Face
tokenizers + ONNX Runtime fp32 in one Node process (hf_ort_embed.js, what
fastembed does), on the same all-MiniLM-L6-v2-shaped weights and the same
short queries, in batches of 32.

The model is examples/embed_text/embed_text.enc (6 blocks, d 384, post-LN,
gelu, mean pooling, normalised) with random weights (python/enc_dev
reference.random_weights); the ONNX graph is the same formulas in torch ops
from input ids (torch.onnx.export, bench/torch_runner.FamilyEncoder for the
blocks). Both sides read the same tokenizer.json (all-MiniLM-L6-v2's). The
embeddings of both are compared (max |diff|, and whether every text got the
same token count is implied by it), then each side runs ROUNDS times,
interleaved, each run reporting the median of its own inner rounds; the
ratio is taken per pair and its median printed.

  /usr/bin/python3 bench/text_embed/run.py [--build build] [--threads 1]
      [--batch 32] [--texts 320] [--rounds 5]
"""
import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from enc_dev import reference, safetensors_io  # noqa: E402
import torch_runner  # noqa: E402

NAME = "all_minilm_l6_v2"
ENC = os.path.join(ROOT, "examples", "embed_text", "embed_text.enc")
TOKENIZER = os.path.join(ROOT, "test", "tokenizer", "Inputs", "all-MiniLM-L6-v2",
                         "tokenizer.json")
WORDS = ("what is the capital of france how do i reset my password best pizza "
         "near me symptoms of flu weather tomorrow in berlin cheap flights to "
         "tokyo python list comprehension example who wrote hamlet convert 5 km "
         "to miles café naïve résumé 東京 の 天気 что такое квантовый компьютер "
         "mejor receta de paella 2024 tax deadline install docker on debian "
         "why is the sky blue").split()


class IdsEncoder(torch.nn.Module):
    """Token, type and position tables, the blocks of FamilyEncoder (on a
    copy of the spec without tables or pooling), then mean pooling over the
    attention mask and L2 normalisation: the ONNX graph a user exports."""

    def __init__(self, spec, weights):
        super().__init__()
        s = reference.normalize_spec(spec)
        inner = dict(s, vocab=0, type_vocab=0, positional={"scheme": "none"},
                     pooling="none", normalize=False)
        self.blocks = torch_runner.FamilyEncoder(inner)
        sd = {"w." + n.replace(".", "__"): torch.from_numpy(
            np.ascontiguousarray(weights[n], dtype=np.float32))
            for n in reference.weight_shapes(self.blocks.spec)}
        sd.update({k: v for k, v in self.blocks.state_dict().items()
                   if not k.startswith("w.")})
        self.blocks.load_state_dict(sd, strict=True)
        for n in ("embed.tokens", "embed.types", "embed.positions"):
            self.register_buffer(n.replace(".", "_"), torch.from_numpy(
                np.ascontiguousarray(weights[n], dtype=np.float32)))
        self.eval()

    def forward(self, input_ids, attention_mask, token_type_ids):
        S = input_ids.shape[1]
        x = (self.embed_tokens[input_ids] + self.embed_types[token_type_ids]
             + self.embed_positions[:S])
        pad = attention_mask == 0
        x = self.blocks(x, pad)
        m = attention_mask.to(x.dtype)[:, :, None]
        pooled = (x * m).sum(1) / m.sum(1).clamp(min=1.0)
        return torch.nn.functional.normalize(pooled, dim=-1)


def queries(n, seed=1):
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 10)))
            for _ in range(n)]


def peer_arguments(doc, inner):
    """The options of this benchmark and bench/rerank/run.py."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--inner", type=int, default=inner, help="rounds inside each run")
    return ap


def export_ids_model(model, path, output):
    """torch.onnx.export of `model`, a module of (input_ids, attention_mask,
    token_type_ids) with a dynamic batch and length, whose output `output`
    has a dynamic batch."""
    ids = torch.ones(2, 7, dtype=torch.int64)
    torch.onnx.export(model, (ids, torch.ones_like(ids), torch.zeros_like(ids)), path,
                      input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=[output], opset_version=14,
                      dynamic_axes={n: {0: "batch", 1: "seq"} for n in
                                    ("input_ids", "attention_mask", "token_type_ids")}
                      | {output: {0: "batch"}})


def peer_model(build, enc_path, encoder, work, module, output, precision):
    """The two sides of a head benchmark on one set of random weights:
    encoder `encoder` of `enc_path` compiled as a shared library, its
    weights written as F32 safetensors, and module(spec, weights) exported
    to ONNX (quantized by bench/ort_int8.py for int8). Returns (spec,
    library, weights path, onnx path)."""
    encc = os.path.join(build, "bin", "encc")
    spec = json.loads(subprocess.run([encc, enc_path, "--emit=spec", "--encoder=" + encoder],
                                     check=True, capture_output=True,
                                     text=True).stdout)["encoders"][0]
    spec = reference.normalize_spec(spec)
    lib = os.path.join(work, "lib%s.so" % encoder)
    subprocess.run([encc, enc_path, "--encoder=" + encoder, "--emit=shared", "-o", lib],
                   check=True)
    weights_path = os.path.join(work, "weights.safetensors")
    onnx_path = os.path.join(work, "model.onnx")
    stored = safetensors_io.write_safetensors(
        weights_path, reference.random_weights(spec, seed=0), "F32")
    export_ids_model(module(spec, stored), onnx_path, output)
    if precision == "int8":
        q = os.path.join(work, "model_int8.onnx")
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "bench", "ort_int8.py"),
                        onnx_path, q], check=True)
        onnx_path = q
    return spec, lib, weights_path, onnx_path


def ensure_node_peer():
    """onnxruntime-node in bench/node, from its lock file."""
    node_dir = os.path.join(ROOT, "bench", "node")
    if not os.path.isdir(os.path.join(node_dir, "node_modules", "onnxruntime-node")):
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=node_dir, check=True,
                       env=dict(os.environ, ONNXRUNTIME_NODE_INSTALL="skip"))


def main():
    ap = peer_arguments(__doc__, inner=5)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--texts", type=int, default=320)
    a = ap.parse_args()
    ensure_node_peer()
    work = os.path.join(a.build, "bench-text-embed")
    os.makedirs(work, exist_ok=True)
    encc = os.path.join(a.build, "bin", "encc")
    spec = json.loads(subprocess.run([encc, ENC, "--emit=spec"], check=True,
                                     capture_output=True, text=True).stdout)["encoders"][0]
    spec = reference.normalize_spec(spec)
    weights_path = os.path.join(work, "weights.safetensors")
    onnx_path = os.path.join(work, "model.onnx")
    weights = reference.random_weights(spec, seed=0)
    stored = safetensors_io.write_safetensors(weights_path, weights, "F32")
    export_ids_model(IdsEncoder(spec, stored), onnx_path, "embedding")
    qpath = os.path.join(work, "queries.txt")
    with open(qpath, "w") as f:
        f.write("\n".join(queries(a.texts)) + "\n")
    common = [str(a.threads), str(a.batch), str(a.inner)]
    ours_cmd = [os.path.join(a.build, "bin", "text_embed_bench"), weights_path, qpath] + common
    theirs_cmd = ["node", os.path.join(HERE, "hf_ort_embed.js"), TOKENIZER, onnx_path,
                  qpath] + common
    env = dict(os.environ, RAYON_NUM_THREADS=str(a.threads))
    # Same embeddings first.
    subprocess.run(ours_cmd[:-1] + ["1", os.path.join(work, "encc.f32")], check=True,
                   capture_output=True)
    subprocess.run(theirs_cmd[:-1] + ["1", os.path.join(work, "ort.f32")], check=True,
                   capture_output=True, env=env)
    x = np.fromfile(os.path.join(work, "encc.f32"), dtype="<f4").reshape(a.texts, -1)
    y = np.fromfile(os.path.join(work, "ort.f32"), dtype="<f4").reshape(a.texts, -1)
    print("CPU: %s; %d threads; %d texts of 3-10 words, batches of %d" % (
        cpu_name(), a.threads, a.texts, a.batch))
    print("same embeddings: max |encc - ORT| = %.2e over %d x %d" % (
        np.abs(x - y).max(), *x.shape))
    ratios, shares = [], []
    for r in range(a.rounds):
        pair = {}
        for who, cmd in (("encc", ours_cmd), ("hf+ort", theirs_cmd))[:: 1 if r % 2 == 0 else -1]:
            out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
            print(out.strip())
            e, t = re.search(r"embed(?:_text)? ([0-9.]+) ms/batch, tokenize ([0-9.]+)", out).groups()
            pair[who] = (float(e), float(t))
        ratios.append(pair["hf+ort"][0] / pair["encc"][0])
        shares.append(pair["encc"][1] / pair["encc"][0])
    print("encc embed_text speed / (HF tokenizers + ORT): %s (median %.2f)" % (
        " ".join("%.2f" % v for v in ratios), statistics.median(ratios)))
    print("encc tokenization share of its embed_text time: median %.1f%%" % (
        100 * statistics.median(shares)))


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "?"


if __name__ == "__main__":
    sys.exit(main())
