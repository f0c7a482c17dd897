"""enc-serve under load on the loopback (docs/serve.md#speed): wrk drives
POST /embed, one text per request, through C connections for D seconds;
the server's throughput (texts/s), latency percentiles and errors are set
beside what the library itself reaches on the same texts batched
optimally (Model.embed_text: sorted by length, batches of 32), in the same
run, interleaved ROUNDS times. With --versus, each round also runs a
second server with those arguments instead of --server-args (e.g. batches
capped at 32 requests with no token budget), on the same texts.

  /usr/bin/python3 bench/serve/run.py [--build build] [--model minilm|bert]
      [--connections 64] [--seconds 10] [--rounds 2] [--threads 2]
      [--server-args "..."] [--versus "..."]

minilm: examples/embed_text (all-MiniLM-L6-v2's shape and tokenizer),
queries of 8-32 tokens; bert: BERT-base's shape with bert-base-uncased's
tokenizer, texts of 16-256 tokens. Random weights (python/enc_dev reference.random_weights). wrk runs
on the same 2 vCPUs as the server, so both figures include its cost.
"""
import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
from enc_dev import reference, safetensors_io  # noqa: E402

TOKENIZER = os.path.join(ROOT, "examples", "embed_text", "tokenizer.json")

# bert-base-uncased's own tokenizer.json: no truncation in the file, so
# texts up to max_len reach the model (MiniLM's file truncates at 128).
BERT_TOKENIZER = os.path.join(ROOT, "test", "tokenizer", "Inputs", "bert-base-uncased",
                              "tokenizer.json")
BERT_ENC = """encoder bert_base {
  d_model = 768; heads = 12; d_ff = 3072; blocks = 12; max_len = 512;
  vocab = 30522; type_vocab = 2; positional = learned; embed_norm = true;
  activation = gelu; eps = 1e-12; pooling = mean; normalize = true;
  tokenizer = "%s";
}
""" % BERT_TOKENIZER

LUA = """-- one text per request, cycling through the bodies
local bodies = {}
for line in io.lines("%s") do bodies[#bodies + 1] = line end
local i = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  i = i %% #bodies + 1
  return wrk.format(nil, "/embed", nil, bodies[i])
end
"""


def build(args, work):
    encc = os.path.join(args.build, "bin", "encc")
    if args.model == "minilm":
        enc_path, name = os.path.join(ROOT, "examples", "embed_text", "embed_text.enc"), \
            "all_minilm_l6_v2"
    else:
        enc_path, name = os.path.join(work, "bert_base.enc"), "bert_base"
        with open(enc_path, "w") as f:
            f.write(BERT_ENC)
    spec = json.loads(subprocess.run([encc, enc_path, "--emit=spec"], check=True,
                                     capture_output=True, text=True).stdout)["encoders"][0]
    spec = reference.normalize_spec(spec)
    lib = os.path.join(work, "lib%s.so" % name)
    subprocess.run([encc, enc_path, "--emit=shared", "-o", lib], check=True)
    weights = os.path.join(work, "weights.safetensors")
    safetensors_io.write_safetensors(weights, reference.random_weights(spec, seed=0), "F32")
    return lib, weights, name


def texts(model, tok, n, lo, hi, rng):
    """n texts of lo..hi tokens (special tokens included)."""
    words = [w for w in json.load(open(TOKENIZER))["model"]["vocab"]
             if w.isalpha() and w.islower() and len(w) > 2]
    out = []
    while len(out) < n:
        target = rng.randint(lo, hi)
        t = " ".join(rng.choice(words) for _ in range(target))
        # The real tokens (the file may pad every encoding).
        count = sum(tok.encode(t).attention_mask)
        while count > target:
            t = t.rsplit(" ", 1)[0]
            count = sum(tok.encode(t).attention_mask)
        out.append(t)
    return out


def run_wrk(port, lua, connections, seconds):
    out = subprocess.run(["wrk", "-t1", "-c%d" % connections, "-d%ds" % seconds, "--timeout", "30s",
                          "--latency", "-s", lua, "http://127.0.0.1:%d" % port],
                         check=True, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))
    lat = dict(re.findall(r"^\s+(50|99)%\s+([0-9.]+\w+)", out, re.M))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errs = re.search(r"Socket errors: (.*)", out)
    return rps, lat.get("50"), lat.get("99"), int(bad.group(1)) if bad else 0, \
        errs.group(1) if errs else "none"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--model", default="minilm", choices=["minilm", "bert"])
    p.add_argument("--connections", type=int, default=64)
    p.add_argument("--seconds", type=int, default=10)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--server-args", default="")
    p.add_argument("--versus", default=None)
    args = p.parse_args()
    os.environ.setdefault("ENC_TOKENIZER_LIBRARY",
                          os.path.join(args.build, "lib", "libenc_tokenizer.so"))
    import enc
    work = tempfile.mkdtemp(prefix="enc-serve-bench-")
    lib, weights, name = build(args, work)
    enc.set_num_threads(args.threads) if hasattr(enc, "set_num_threads") else None
    model = enc.load(lib, weights, name)
    tok = model.tokenizer
    rng = random.Random(0)
    lo, hi = (8, 32) if args.model == "minilm" else (16, 256)
    corpus = texts(model, tok, 2000 if args.model == "minilm" else 400, lo, hi, rng)
    bodies = os.path.join(work, "bodies.jsonl")
    with open(bodies, "w") as f:
        for t in corpus:
            f.write(json.dumps({"inputs": t}) + "\n")
    lua = os.path.join(work, "embed.lua")
    with open(lua, "w") as f:
        f.write(LUA % bodies)
    cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
                         capture_output=True, text=True).stdout.strip()
    print("CPU: %s; %s, %d texts of %d-%d tokens, %d connections, %d threads" % (
        cpu, args.model, len(corpus), lo, hi, args.connections, args.threads))
    ratios = {}
    for r in range(args.rounds):
        # The library alone: every text once, sorted and batched by 32.
        start = time.perf_counter()
        model.embed_text(corpus)
        library = len(corpus) / (time.perf_counter() - start)
        policies = [("server", args.server_args)]
        if args.versus is not None:
            policies.append(("versus", args.versus))
        for label, extra in policies:
            server = subprocess.Popen(
                [os.path.join(args.build, "bin", "enc-serve"), "--library", lib, "--weights",
                 weights, "--port", "0", "--threads", str(args.threads)]
                + extra.split(), stdout=subprocess.PIPE, text=True)
            port = int(server.stdout.readline().split("127.0.0.1:")[1].split()[0])
            try:
                rps, p50, p99, bad, errs = run_wrk(port, lua, args.connections, args.seconds)
            finally:
                server.terminate()
                server.wait(timeout=60)
            ratios.setdefault(label, []).append(rps / library)
            print("round %d: %s [%s] %.0f texts/s (p50 %s, p99 %s, non-2xx %d, socket errors "
                  "%s); library %.0f texts/s; /library %.2f" % (
                      r + 1, label, extra or "defaults", rps, p50, p99, bad, errs, library,
                      rps / library), flush=True)
    for label, rs in ratios.items():
        print("%s/library: %s (median %.2f)" % (
            label, " ".join("%.2f" % x for x in rs), statistics.median(rs)))


if __name__ == "__main__":
    main()
