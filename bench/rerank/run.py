"""Reranking: encc (enc.Model.rerank over a compiled MiniLM-L6 cross-encoder,
bench/models/cross_minilm.enc) against Hugging Face tokenizers + ONNX
Runtime in one Node process (hf_ort_rerank.js, what text-embeddings-inference
and fastembed do), on the same random weights, one query and 32 passages of
about 100 tokens each, fp32 and int8 (ONNX Runtime's DynamicQuantizeMatMul
graph of bench/ort_int8.py against encc's precision = int8).

The ONNX graph is the same formulas in torch ops from input ids
(bench/text_embed/run.py's IdsEncoder blocks, then BERT's pooler and the
one-label classifier on [CLS]), exported with torch.onnx.export. Both sides
read bert-base-uncased's tokenizer.json (MiniLM's vocabulary). The scores of
both are compared first (max |diff|, and whether the order is the same), then
each side runs ROUNDS times, interleaved, each run reporting the median of its
own inner rounds; the ratio is taken per pair and its median printed.

  /usr/bin/python3 bench/rerank/run.py [--build build] [--threads 1]
      [--precision fp32|int8] [--passages 32] [--rounds 5] [--inner 10]
"""
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
sys.path.insert(0, os.path.join(ROOT, "bench", "text_embed"))
import run as text_embed  # noqa: E402

ENC = os.path.join(ROOT, "bench", "models", "cross_minilm.enc")
TOKENIZER = os.path.join(ROOT, "test", "tokenizer", "Inputs", "bert-base-uncased",
                         "tokenizer.json")
PY = "/usr/bin/python3"


class CrossEncoder(text_embed.IdsEncoder):
    """The blocks of IdsEncoder, then tanh(pooler(h[:, 0])) and the
    classifier: BertForSequenceClassification's forward."""

    def __init__(self, spec, weights):
        super().__init__(dict(spec, head="none", pooling="none"), weights)
        for n in ("head.dense.weight", "head.dense.bias", "head.out.weight",
                  "head.out.bias"):
            self.register_buffer(n.replace(".", "_"), torch.from_numpy(
                np.ascontiguousarray(weights[n], dtype=np.float32)))

    def forward(self, input_ids, attention_mask, token_type_ids):
        S = input_ids.shape[1]
        x = (self.embed_tokens[input_ids] + self.embed_types[token_type_ids]
             + self.embed_positions[:S])
        x = self.blocks(x, attention_mask == 0)
        h = torch.tanh(torch.nn.functional.linear(x[:, 0], self.head_dense_weight,
                                                  self.head_dense_bias))
        return torch.nn.functional.linear(h, self.head_out_weight, self.head_out_bias)


def passages(n, seed=2):
    rng = random.Random(seed)
    words = text_embed.WORDS
    return [" ".join(rng.choice(words) for _ in range(rng.randint(60, 80)))
            for _ in range(n)]


def main():
    ap = text_embed.peer_arguments(__doc__, inner=10)
    ap.add_argument("--precision", choices=("fp32", "int8"), default="fp32")
    ap.add_argument("--passages", type=int, default=32)
    a = ap.parse_args()
    text_embed.ensure_node_peer()
    os.environ.setdefault("ENC_TOKENIZER_LIBRARY",
                          os.path.join(a.build, "lib", "libenc_tokenizer.so"))
    work = os.path.join(a.build, "bench-rerank")
    os.makedirs(work, exist_ok=True)
    encoder = "cross_minilm" if a.precision == "fp32" else "cross_minilm_int8"
    spec, lib, weights_path, onnx_path = text_embed.peer_model(
        a.build, ENC, encoder, work, CrossEncoder, "logits", a.precision)
    tpath = os.path.join(work, "texts.txt")
    docs = passages(a.passages)
    with open(tpath, "w") as f:
        f.write("\n".join(["what is the weather in berlin tomorrow"] + docs) + "\n")
    ours = [PY, os.path.join(HERE, "encc_rerank.py"), lib, encoder, weights_path, TOKENIZER,
            tpath, str(a.threads)]
    theirs = ["node", os.path.join(HERE, "hf_ort_rerank.js"), TOKENIZER, onnx_path, tpath,
              str(a.threads)]
    env = dict(os.environ, RAYON_NUM_THREADS=str(a.threads))
    subprocess.run(ours + ["1", os.path.join(work, "encc.f32")], check=True, capture_output=True,
                   env=env)
    subprocess.run(theirs + ["1", os.path.join(work, "ort.f32")], check=True, capture_output=True,
                   env=env)
    x = np.fromfile(os.path.join(work, "encc.f32"), dtype="<f4")
    y = np.fromfile(os.path.join(work, "ort.f32"), dtype="<f4")
    import enc  # noqa: E402  (for the token counts only)
    tok = enc.Tokenizer.from_file(TOKENIZER)
    lens = [len(tok.encode("what is the weather in berlin tomorrow", d).ids) for d in docs]
    print("CPU: %s; %d threads; %s; 1 query x %d passages of %d-%d tokens (pair)" % (
        text_embed.cpu_name(), a.threads, a.precision, len(docs), min(lens), max(lens)))
    print("same scores: max |encc - ORT| = %.2e (max |score| %.2f); same order: %s" % (
        np.abs(x - y).max(), np.abs(y).max(),
        list(np.argsort(-x, kind="stable")) == list(np.argsort(-y, kind="stable"))))
    ratios = []
    for r in range(a.rounds):
        pair = {}
        for who, cmd in (("encc", ours), ("hf+ort", theirs))[:: 1 if r % 2 == 0 else -1]:
            out = subprocess.run(cmd + [str(a.inner)], check=True, capture_output=True,
                                 text=True, env=env).stdout
            print(out.strip())
            pair[who] = float(re.search(r"rerank ([0-9.]+) ms/query", out).group(1))
        ratios.append(pair["hf+ort"] / pair["encc"])
    print("encc rerank speed / (HF tokenizers + ORT %s): %s (median %.2f)" % (
        a.precision, " ".join("%.2f" % v for v in ratios), statistics.median(ratios)))


if __name__ == "__main__":
    sys.exit(main())
