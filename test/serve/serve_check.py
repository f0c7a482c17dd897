#!/usr/bin/env python3
"""enc-serve against the library's own forward (docs/serve.md), on real
sockets on the loopback, every loop bounded in count and time:

- /embed, /v1/embeddings (float and base64, texts or token ids), /tokenize,
  /decode, /similarity, /health, /info,
  /metrics; each answer equal to the library's forward of the same ids,
  bit for bit when the request is a batch alone, and within 1e-6 under
  concurrent clients (whose batches mix requests);
- /rerank, /predict (softmax, sigmoid, raw scores), /embed_sparse, and
  /embed_all on a model of per-token output;
- every error path: malformed or deep JSON, missing or empty inputs, an
  input over max_len, a body over --max-body-bytes, too many inputs, a
  route the model cannot serve, an unknown route or method;
- overload: more concurrent requests than the queue holds get 429 with
  Retry-After, and every request gets exactly one answer;
- slow and broken clients (a half-sent body, a disconnect mid-request)
  cost no worker;
- SIGTERM under load: what was accepted is answered, then exit 0;
- --api-key: 401 without the bearer key, the same answers with it.

usage: serve_check.py ENCC ENC_SERVE ENC_FILE WORK_DIR
(PYTHONPATH naming python/, ENC_TOKENIZER_LIBRARY the tokenizer library)
"""
import base64
import http.client
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

import numpy as np

import enc
from enc_dev import reference, safetensors_io
from enc_dev.checks import check, finish



class Server:
    """enc-serve on a free port of 127.0.0.1; stopped with SIGTERM."""

    def __init__(self, exe, lib, weights, *args):
        self.proc = subprocess.Popen(
            [exe, "--library", lib, "--weights", weights, "--port", "0",
             "--threads", "2", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if "listening on http://127.0.0.1:" not in line:
            raise RuntimeError("enc-serve did not start: %r %s" %
                               (line, self.proc.stderr.read()))
        self.port = int(line.split("127.0.0.1:")[1].split()[0])

    def request(self, method, path, body=None, raw=None, timeout=30, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        data = raw if raw is not None else (
            json.dumps(body).encode() if body is not None else None)
        c.request(method, path, body=data,
                  headers=dict({"Content-Type": "application/json"}, **(headers or {})))
        r = c.getresponse()
        payload = r.read()
        c.close()
        return r.status, dict(r.getheaders()), payload

    def post(self, path, body):
        status, _, payload = self.request("POST", path, body)
        return status, json.loads(payload) if payload else None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self, timeout=30):
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = None
        return rc


def build(encc, enc_file, work):
    lib = os.path.join(work, "libserve.so")
    subprocess.run([encc, enc_file, "--emit=shared", "-o", lib], check=True)
    weights = {}
    for name in ("embed", "cross", "labels3", "sparse", "tokens"):
        spec = json.loads(subprocess.run(
            [encc, enc_file, "--emit=spec", "--encoder=" + name], check=True,
            capture_output=True, text=True).stdout)["encoders"][0]
        spec = reference.normalize_spec(spec)
        path = os.path.join(work, name + ".safetensors")
        safetensors_io.write_safetensors(
            path, reference.random_weights(spec, seed=7), "F32")
        weights[name] = path
    return lib, weights


def forward_rows(model, seqs, types=None):
    """The library's forward over `seqs` (lists of ids, with their type ids
    or None), one batch."""
    n = max(len(s) for s in seqs)
    ids = np.zeros((len(seqs), n), np.int32)
    type_ids = np.zeros_like(ids)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = s
        if types is not None:
            type_ids[i, :len(s)] = types[i]
    return model.forward(ids, lengths=np.array([len(s) for s in seqs], np.int32),
                         token_types=type_ids if types is not None else None)


TEXTS = ["Hello, world!", "naïve café and 中文 text",
         "a somewhat longer sentence about encoders, tokenizers and servers",
         "short", "Don't stop believing; hold on to that feeling."]


def check_embed(exe, lib, weights):
    model = enc.load(lib, weights["embed"], "embed")
    tok = model.tokenizer
    srv = Server(exe, lib, weights["embed"], "--encoder", "embed",
                 "--max-body-bytes", "65536", "--max-client-batch-size", "8")
    try:
        status, _, body = srv.request("GET", "/health")
        check(status == 200 and body == b"", "GET /health: 200")
        status, info = srv.request("GET", "/info")[0], json.loads(srv.request("GET", "/info")[2])
        check(status == 200 and info["max_input_length"] == 64 and info["dimensions"] == 32
              and info["model_type"] == {"embedding": {"pooling": "mean"}},
              "GET /info: %s" % {k: info[k] for k in ("max_input_length", "dimensions", "head")})

        # One text, and a batch, each alone: the library's forward bit for bit.
        status, rows = srv.post("/embed", {"inputs": TEXTS[0]})
        want = forward_rows(model, [tok.encode(TEXTS[0]).ids])
        got = np.array(rows, np.float32)
        check(status == 200 and got.shape == (1, 32) and np.array_equal(got, want),
              "/embed one text == forward of its ids, bit for bit")
        status, rows = srv.post("/embed", {"inputs": TEXTS})
        want = forward_rows(model, [tok.encode(t).ids for t in TEXTS])
        got = np.array(rows, np.float32)
        check(status == 200 and np.array_equal(got, want),
              "/embed %d texts == one forward of the same batch, bit for bit" % len(TEXTS))
        status, rows = srv.post("/embed", {"inputs": TEXTS, "dimensions": 8})
        prefix = want[:, :8] / np.linalg.norm(want[:, :8], axis=1, keepdims=True)
        got = np.array(rows, np.float32)
        check(status == 200 and got.shape == (5, 8) and np.abs(got - prefix).max() < 1e-6,
              "/embed dimensions 8: the prefix renormalized")

        # OpenAI's shape: the same rows, usage counts the tokens read.
        status, out = srv.post("/v1/embeddings", {"input": TEXTS, "model": "m"})
        tokens = sum(len(tok.encode(t).ids) for t in TEXTS)
        got = np.array([d["embedding"] for d in out["data"]], np.float32)
        check(status == 200 and np.array_equal(got, want) and out["model"] == "m"
              and out["usage"]["prompt_tokens"] == tokens
              and [d["index"] for d in out["data"]] == list(range(5)),
              "/v1/embeddings == /embed, usage.prompt_tokens %d" % tokens)
        status, out = srv.post("/v1/embeddings", {"input": TEXTS[1], "encoding_format": "base64"})
        raw = base64.b64decode(out["data"][0]["embedding"])
        got = np.frombuffer(raw, "<f4")
        check(status == 200 and np.array_equal(got, want[1]),
              "/v1/embeddings base64: the same float32 bytes")

        # Token ids, as OpenAI's clients may send them: taken as they are.
        ids = [tok.encode(t).ids for t in TEXTS[:2]]
        status, out = srv.post("/v1/embeddings", {"input": ids})
        got = np.array([d["embedding"] for d in out["data"]], np.float32)
        check(status == 200 and np.array_equal(got, want[:2])
              and out["usage"]["prompt_tokens"] == sum(map(len, ids)),
              "/v1/embeddings of token ids == of the texts, bit for bit")
        status, rows = srv.post("/embed", {"inputs": ids[0]})
        check(status == 200 and np.array_equal(np.array(rows, np.float32), want[:1]),
              "/embed of one list of token ids == of its text")
        status, rows = srv.post("/embed", {"inputs": [TEXTS[2], ids[1]]})
        check(status == 200 and np.array_equal(np.array(rows, np.float32), want[[2, 1]]),
              "/embed of a text and a list of ids, mixed: each its own row")

        # /similarity: the cosine of the source's row with each sentence's,
        # from the same forward as /embed's (float64 here, as the server).
        status, out = srv.post("/similarity", {"inputs": {"source_sentence": TEXTS[0],
                                                          "sentences": TEXTS[1:]}})
        w = want.astype(np.float64)
        cos = (w[1:] @ w[0]) / (np.linalg.norm(w[1:], axis=1) * np.linalg.norm(w[0]))
        got = np.array(out, np.float64) if status == 200 else np.zeros(0)
        check(status == 200 and got.shape == (4,) and np.abs(got - cos).max() < 1e-6,
              "/similarity: cosine of the source's embedding with each sentence's")

        status, out = srv.post("/tokenize", {"inputs": [TEXTS[1]]})
        enc_ids = tok.encode(TEXTS[1])
        check(status == 200 and [t["id"] for t in out[0]] == enc_ids.ids
              and out[0][0]["special"] and out[0][0]["start"] is None
              and out[0][1]["start"] == 0,
              "/tokenize ids == enc.Tokenizer's, specials without offsets")

        # /decode: the tokenizer's own decode of the same ids, one list or
        # several, special tokens dropped unless asked to keep them.
        ids1, ids2 = tok.encode(TEXTS[1]).ids, tok.encode(TEXTS[2]).ids
        status, out = srv.post("/decode", {"ids": ids1})
        check(status == 200 and out == [tok.decode(ids1)] and out[0],
              "/decode of one list of ids == enc.Tokenizer.decode: %r" % out)
        status, out = srv.post("/decode", {"ids": [ids1, ids2], "skip_special_tokens": False})
        check(status == 200 and out == [tok.decode(ids1, False), tok.decode(ids2, False)]
              and out[0] != tok.decode(ids1),
              "/decode of two lists, specials kept == enc.Tokenizer.decode")

        # Error paths: TEI's status and error JSON.
        def error(path, body=None, raw=None, method="POST"):
            status, headers, payload = srv.request(method, path, body, raw=raw)
            try:
                j = json.loads(payload)
            except ValueError:
                j = {}
            return status, j.get("error_type"), j.get("error", "")
        cases = [
            ("malformed JSON", error("/embed", raw=b'{"inputs": '), 400, "Validation"),
            ("invalid UTF-8", error("/embed", raw=b'{"inputs": "\xff\xfe"}'), 400, "Validation"),
            ("deep JSON", error("/embed", raw=b"[" * 60000), 400, "Validation"),
            ("not an object", error("/embed", raw=b"[1]"), 422, "Validation"),
            ("no inputs", error("/embed", {"input": "x"}), 422, "Validation"),
            ("inputs a number", error("/embed", {"inputs": 3}), 422, "Validation"),
            ("empty list", error("/embed", {"inputs": []}), 400, "Empty"),
            ("empty text", error("/embed", {"inputs": ["a", ""]}), 400, "Empty"),
            ("too many inputs", error("/embed", {"inputs": ["a"] * 9}), 413, "Validation"),
            ("too long", error("/embed", {"inputs": "word " * 100}), 413, "Validation"),
            ("token id out of range", error("/embed", {"inputs": [101, 99999]}), 422,
             "Validation"),
            ("ids mixed with a string", error("/embed", {"inputs": [[101, "a"]]}), 422,
             "Validation"),
            ("too many token ids", error("/v1/embeddings", {"input": [5] * 100}), 413,
             "Validation"),
            ("an empty list of ids", error("/embed", {"inputs": ["a", []]}), 400, "Empty"),
            ("body over the limit", error("/embed", {"inputs": "a" * 70000}), 413, "Validation"),
            ("bad dimensions", error("/embed", {"inputs": "a", "dimensions": 33}), 400, "Validation"),
            ("normalize false", error("/embed", {"inputs": "a", "normalize": False}), 400, "Validation"),
            ("a head it lacks", error("/rerank", {"query": "q", "texts": ["a"]}), 400, "Validation"),
            ("similarity without inputs", error("/similarity", {"source_sentence": "a"}), 422,
             "Validation"),
            ("similarity of an empty source",
             error("/similarity", {"inputs": {"source_sentence": "", "sentences": ["a"]}}), 400,
             "Empty"),
            ("similarity without sentences",
             error("/similarity", {"inputs": {"source_sentence": "a", "sentences": []}}), 400,
             "Empty"),
            ("similarity of too many sentences",
             error("/similarity", {"inputs": {"source_sentence": "a", "sentences": ["b"] * 8}}),
             413, "Validation"),
            ("decode without ids", error("/decode", {"id": [1]}), 422, "Validation"),
            ("decode of an id out of range", error("/decode", {"ids": [5, 99999]}), 422,
             "Validation"),
            ("decode of a text", error("/decode", {"ids": "hello"}), 422, "Validation"),
            ("decode of too many lists", error("/decode", {"ids": [[5]] * 9}), 413,
             "Validation"),
            ("unknown route", error("/nope"), 404, "Validation"),
            ("GET on a POST route", error("/embed", method="GET"), 405, "Validation"),
        ]
        for what, (status, kind, message), want_status, want_kind in cases:
            check(status == want_status and kind == want_kind and message,
                  "%s: %d %s (%s)" % (what, status, kind, message[:70]))
        status, out = srv.post("/embed", {"inputs": "word " * 100, "truncate": True})
        check(status == 200 and len(out) == 1, "too long with truncate: cut to max_len, 200")

        # Concurrent clients: every answer is its texts' rows.
        want_one = {t: forward_rows(model, [tok.encode(t).ids])[0] for t in TEXTS}
        results, errors = [], []

        def client(k):
            for r in range(8):
                texts = [TEXTS[(k + r + j) % 5] for j in range(1 + (k + r) % 3)]
                status, rows = srv.post("/embed", {"inputs": texts})
                if status != 200:
                    errors.append(status)
                    continue
                results.append(max(float(np.abs(np.array(row, np.float32) - want_one[t]).max())
                                   for row, t in zip(rows, texts)))
        threads = [threading.Thread(target=client, args=(k,)) for k in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        worst = max(results) if results else float("inf")
        check(not errors and len(results) == 96 and worst <= 1e-6,
              "12 concurrent clients x 8 requests: %d answers, errors %s, max |diff| "
              "vs each text alone %.1e" % (len(results), errors, worst))

        # Slow and broken clients: a half-sent body and a disconnect hold no
        # worker the others need.
        slow = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        slow.sendall(b"POST /embed HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n{\"inputs\": ")
        gone = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        gone.sendall(b"POST /embed HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{")
        gone.close()
        status, rows = srv.post("/embed", {"inputs": TEXTS[2]})
        check(status == 200 and np.array_equal(np.array(rows, np.float32), forward_rows(
            model, [tok.encode(TEXTS[2]).ids])), "a half-sent body and a disconnect: "
              "others are still answered")
        slow.settimeout(10)
        try:
            answer = slow.recv(4096)
        except socket.timeout:
            answer = b""
        slow.close()
        check(answer == b"" or answer.startswith(b"HTTP/1.1 4"),
              "the half-sent body is dropped after the read timeout (%r)" % answer[:20])

        status, _, metrics = srv.request("GET", "/metrics")
        text = metrics.decode()
        check(status == 200 and 'enc_requests_total{route="/embed",status="200"}' in text
              and "enc_batch_size_bucket" in text and 'enc_errors_total{kind="Empty"} 5' in text,
              "/metrics: requests by route and status, batch sizes, errors by kind")
    finally:
        rc = srv.stop()
    check(rc == 0, "SIGTERM on an idle server: exit %s" % rc)


def check_overload_and_drain(exe, lib, weights):
    # A queue of 2 and batches of one sequence: 24 concurrent requests
    # overflow it; each gets one answer, 200 or 429 with Retry-After.
    srv = Server(exe, lib, weights["embed"], "--encoder", "embed", "--max-queue", "2",
                 "--max-batch-requests", "1", "--threads", "1")
    statuses, retry = [], []
    barrier = threading.Barrier(24)

    def client():
        barrier.wait(timeout=30)
        status, headers, _ = srv.request("POST", "/embed",
                                         {"inputs": ["word " * 60] * 8})
        statuses.append(status)
        if status == 429:
            retry.append(headers.get("Retry-After"))
    threads = [threading.Thread(target=client) for _ in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    ok, busy = statuses.count(200), statuses.count(429)
    check(len(statuses) == 24 and ok + busy == 24 and ok >= 1 and busy >= 1
          and all(r == "1" for r in retry),
          "24 concurrent requests, queue of 2: %d answered 200, %d answered 429 "
          "(Retry-After 1), none lost" % (ok, busy))

    # SIGTERM with requests in flight: each is answered, then exit 0.
    answers = []

    def late():
        try:
            status, _, _ = srv.request("POST", "/embed", {"inputs": ["word " * 60] * 8})
        except OSError as e:  # refused once the server is gone
            status = type(e).__name__
        answers.append(status)
    threads = [threading.Thread(target=late) for _ in range(6)]
    for t in threads:
        t.start()
    time.sleep(0.05)
    rc = srv.stop()
    for t in threads:
        t.join(timeout=60)
    check(rc == 0 and len(answers) == 6 and all(a in (200, 429, 503, "ConnectionRefusedError")
                                                 for a in answers),
          "SIGTERM under load: exit %s, every request answered %s" % (rc, sorted(map(str, answers))))


def check_heads(exe, lib, weights):
    cross = enc.load(lib, weights["cross"], "cross")
    tok = cross.tokenizer
    with Server(exe, lib, weights["cross"], "--encoder", "cross") as srv:
        docs = TEXTS[1:]
        status, out = srv.post("/rerank", {"query": TEXTS[0], "texts": docs,
                                           "return_text": True})
        pairs = [tok.encode(TEXTS[0], d) for d in docs]
        logits = forward_rows(cross, [p.ids for p in pairs], [p.type_ids for p in pairs])[:, 0]
        sig = 1 / (1 + np.exp(-logits.astype(np.float64)))
        order = list(np.argsort(-sig, kind="stable"))
        check(status == 200 and [r["index"] for r in out] == order
              and max(abs(r["score"] - sig[r["index"]]) for r in out) < 1e-6
              and out[0]["text"] == docs[order[0]],
              "/rerank: sigmoid of the cross-encoder's logits, best first")
        status, out = srv.post("/rerank", {"query": TEXTS[0], "texts": docs, "raw_scores": True})
        check(status == 200 and max(abs(r["score"] - logits[r["index"]]) for r in out) < 1e-6,
              "/rerank raw_scores: the logits")
        status, out = srv.post("/embed", {"inputs": "x"})
        check(status == 400 and "cannot serve /embed" in out["error"],
              "/embed on a cross-encoder: 400 naming the head")
        status, out = srv.post("/similarity", {"inputs": {"source_sentence": "x",
                                                          "sentences": ["y"]}})
        check(status == 400 and "cannot serve /similarity" in out["error"],
              "/similarity on a cross-encoder: 400 naming the head")

    labels = enc.load(lib, weights["labels3"], "labels3")
    with Server(exe, lib, weights["labels3"], "--encoder", "labels3") as srv:
        status, out = srv.post("/predict", {"inputs": [TEXTS[0], [TEXTS[1], TEXTS[2]]]})
        e0 = labels.tokenizer.encode(TEXTS[0])
        logits = forward_rows(labels, [e0.ids])[0].astype(np.float64)
        soft = np.exp(logits - logits.max())
        soft /= soft.sum()
        first = {r["label"]: r["score"] for r in out[0]}
        check(status == 200 and len(out) == 2 and len(out[0]) == 3
              and max(abs(first["LABEL_%d" % k] - soft[k]) for k in range(3)) < 1e-6
              and out[0][0]["score"] >= out[0][1]["score"],
              "/predict: softmax over 3 labels, highest first, a text and a pair")

    sparse = enc.load(lib, weights["sparse"], "sparse")
    with Server(exe, lib, weights["sparse"], "--encoder", "sparse") as srv:
        status, out = srv.post("/embed_sparse", {"inputs": TEXTS[:2]})
        want = forward_rows(sparse, [sparse.tokenizer.encode(t).ids for t in TEXTS[:2]])
        ok = status == 200 and len(out) == 2
        for i in range(2 if ok else 0):
            nz = np.nonzero(want[i] > 0)[0]
            ok = ok and [e["index"] for e in out[i]] == list(nz) and np.array_equal(
                np.array([e["value"] for e in out[i]], np.float32), want[i][nz])
        check(ok, "/embed_sparse: the nonzero terms of the SPLADE rows, bit for bit")

    # A model of per-token output (a colbert head, pooling none): /embed_all
    # gives each input's token rows, special tokens included; the pooled
    # routes refuse it, and a pooled model refuses /embed_all.
    tokens = enc.load(lib, weights["tokens"], "tokens")
    with Server(exe, lib, weights["tokens"], "--encoder", "tokens") as srv:
        seqs = [tokens.tokenizer.encode(t).ids for t in TEXTS[:3]]
        want = forward_rows(tokens, seqs)
        status, out = srv.post("/embed_all", {"inputs": TEXTS[:3]})
        ok = status == 200 and [len(o) for o in out] == [len(s) for s in seqs]
        for i in range(3 if ok else 0):
            ok = ok and np.array_equal(np.array(out[i], np.float32), want[i, :len(seqs[i])])
        check(ok, "/embed_all: each input's token rows == one forward of the batch, bit for "
              "bit (%s tokens)" % [len(s) for s in seqs])
        status, out = srv.post("/embed", {"inputs": "x"})
        check(status == 400 and "cannot serve /embed" in out["error"],
              "/embed on a model of per-token output: 400 naming why")
    # One request split over batches of two sequences: each sequence's rows
    # land where they belong.
    with Server(exe, lib, weights["tokens"], "--encoder", "tokens",
                "--max-batch-requests", "2") as srv:
        seqs = [tokens.tokenizer.encode(t).ids for t in TEXTS]
        status, out = srv.post("/embed_all", {"inputs": TEXTS})
        worst = max(float(np.abs(np.array(out[i], np.float32)
                                 - forward_rows(tokens, [seqs[i]])[0, :len(seqs[i])]).max())
                    for i in range(len(TEXTS))) if status == 200 else None
        check(status == 200 and [len(o) for o in out] == [len(q) for q in seqs]
              and worst < 1e-5,
              "/embed_all over batches of 2: each input's rows, max |diff| vs alone %s" % worst)
    with Server(exe, lib, weights["sparse"], "--encoder", "sparse") as srv:
        status, out = srv.post("/embed_all", {"inputs": "x"})
        check(status == 400 and "per-token output" in out["error"],
              "/embed_all on a pooling model: 400 naming what it needs")


def check_api_key(exe, lib, weights):
    """--api-key: every route but /health needs 'Authorization: Bearer KEY'
    (401 with TEI's error JSON otherwise); with it, the same answers."""
    model = enc.load(lib, weights["embed"], "embed")
    want = forward_rows(model, [model.tokenizer.encode(TEXTS[0]).ids])
    key = "s3cret-key"
    with Server(exe, lib, weights["embed"], "--encoder", "embed", "--api-key", key) as srv:
        body = {"inputs": TEXTS[0]}
        outcomes = []
        for what, headers in (("no header", None),
                              ("a wrong key", {"Authorization": "Bearer s3cret-kez"}),
                              ("a longer key", {"Authorization": "Bearer " + key + "x"}),
                              ("the key without Bearer", {"Authorization": key})):
            status, h, payload = srv.request("POST", "/embed", body, headers=headers)
            j = json.loads(payload) if payload else {}
            outcomes.append((what, status, j.get("error_type"), h.get("WWW-Authenticate")))
        check(all(o[1:] == (401, "Unauthorized", "Bearer") for o in outcomes),
              "--api-key: 401 Unauthorized for %s" % ", ".join(
                  "%s (%d)" % (o[0], o[1]) for o in outcomes))
        status, _, payload = srv.request("POST", "/embed", body,
                                         headers={"Authorization": "Bearer " + key})
        rows = np.array(json.loads(payload), np.float32) if status == 200 else None
        check(status == 200 and np.array_equal(rows, want),
              "--api-key: with the key, /embed == forward, bit for bit")
        health = srv.request("GET", "/health")[0]
        metrics = srv.request("GET", "/metrics")[0]
        check(health == 200 and metrics == 401,
              "--api-key: /health needs no key (%d), /metrics does (%d)" % (health, metrics))
    model.close()


def main():
    encc, exe, enc_file, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    lib, weights = build(encc, enc_file, work)
    started = time.time()
    check_embed(exe, lib, weights)
    check_api_key(exe, lib, weights)
    check_overload_and_drain(exe, lib, weights)
    check_heads(exe, lib, weights)
    return finish(" (%.0f s)" % (time.time() - started))


if __name__ == "__main__":
    sys.exit(main())
