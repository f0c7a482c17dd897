#!/usr/bin/python3
"""Accuracy of each precision against the float64 reference, same weights.

  bench/accuracy.py [--build DIR] [--models bert,minilm] [--inits unit,bert]
                    [--precisions fp32,int8,bf16] [--batch 2] [--seq 128]
                    [--seed 1] [--json FILE]

For BERT-base-shaped (bench/models/bert_base_emb.enc) and MiniLM-L6-shaped
(bench/models/minilm_emb.enc) encoders, with unit-scale random weights
(python/enc_dev/reference.random_weights: W ~ N(0,1)/sqrt(fan_in)) and with weights
of realistic scale (as BERT initialises: W ~ N(0, 0.02^2), biases 0, norms 1
and 0), one input x ~ N(0,1) of [batch, seq, d_model] goes through

  encc fp32 / int8 / bf16   the model compiled with `precision = P`
  ORT fp32                  torch.onnx.export of the same weights (onnxruntime-node)
  ORT int8                  that graph with DynamicQuantizeMatMul (ort_int8.py)
  ORT int8 7-bit            the same with --reduce-range (7-bit weights)

and each output is compared with python/enc_dev/reference.forward in float64 on the
same (float32-stored) weights: max |err| over all elements, min and median of
the cosine similarity of each output vector (one per token), and the cosine of
the mean-pooled embedding (the lowest over the batch). Targets (docs/numerics.md):
pooled cosine >= 0.999 for int8, >= 0.9999 for bf16.

A precision the built encc or its runtime does not implement is reported as
such (its column reads n/a with the reason) rather than failing the run.
Run with /usr/bin/python3 (numpy, torch for the export, python3-onnx).
"""
import argparse
import json
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import e2e  # noqa: E402
from enc_dev import reference  # noqa: E402
from enc_dev.metrics import fmt_cos, metrics, reference_output  # noqa: E402

ACC_MODELS = ("bert", "minilm")  # keys of e2e.MODELS
TARGETS = {"int8": 0.999, "bf16": 0.9999}


def run_once(name, cmd, env, b, s, inp, lens, out):
    """Start a runner, one forward writing `out`, quit. -> output array or the
    reason it failed (str)."""
    try:
        r = e2e.Runner(name, cmd, env)
    except SystemExit as e:
        return "failed to load (%s)" % e
    try:
        r.case(b, s, inp, lens, out)
    except (SystemExit, AssertionError) as e:
        return "forward failed (%s)" % e
    finally:
        try:
            r.close()
        except Exception:  # noqa: BLE001  (a runner that died already)
            pass
    return np.fromfile(out, dtype="<f4")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", default=os.path.join(e2e.ROOT, "build"))
    ap.add_argument("--work", default=None, help="scratch (default BUILD/bench-e2e)")
    ap.add_argument("--models", default="bert,minilm")
    ap.add_argument("--inits", default="unit,bert")
    ap.add_argument("--precisions", default="fp32,int8,bf16", help="encc's columns")
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    paths = e2e.Paths(args.build, args.work or os.path.join(args.build, "bench-e2e"))
    os.makedirs(paths.work, exist_ok=True)
    models = [m for m in args.models.split(",") if m]
    inits = [i for i in args.inits.split(",") if i]
    precisions = [p for p in args.precisions.split(",") if p]
    for m in models:
        if m not in ACC_MODELS:
            raise SystemExit("unknown model %r; known: %s" % (m, ", ".join(ACC_MODELS)))
    for i in inits:
        if i not in e2e.INITS:
            raise SystemExit("unknown init %r; known: %s" % (i, ", ".join(e2e.INITS)))
    for p in precisions:
        if p not in e2e.PRECISIONS:
            raise SystemExit("unknown precision %r; known: %s" % (p, ", ".join(e2e.PRECISIONS)))

    columns = ["encc " + p for p in precisions] + ["ORT fp32", "ORT int8", "ORT int8 7-bit"]
    results = []
    for key in models:
        builds, unavailable = {}, {}
        for p in precisions:
            try:
                builds[p] = e2e.compile_encc(paths, key, None, p, times=1)
            except SystemExit as e:
                lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
                errs = [ln for ln in lines if "error:" in ln]
                unavailable[p] = (errs or lines or [str(e)])[0].split("error:", 1)[-1].strip()
        base = builds.get("fp32") or e2e.compile_encc(paths, key, None, "fp32", 1)
        spec, d = base["spec"], base["dir"]
        rng = np.random.default_rng(args.seed)
        x = rng.standard_normal((args.batch, args.seq, spec["d_model"])).astype("<f4")
        inp = os.path.join(d, "accuracy_input.f32")
        x.tofile(inp)
        for init in inits:
            weights, w_stamp = e2e.ensure_weights(spec, args.seed, d, init)
            suffix = "" if init == "unit" else "-" + init
            onnx, onnx_int8 = e2e.ensure_onnx(base["spec_path"], weights, w_stamp, d, True, suffix)
            onnx7 = os.path.join(d, "model%s_int8_7bit.onnx" % suffix)
            if not os.path.exists(onnx7) or os.path.getmtime(onnx7) < os.path.getmtime(onnx_int8):
                e2e.run([e2e.PY, os.path.join(HERE, "ort_int8.py"), onnx, onnx7, "--reduce-range"])
            e2e.log("%s/%s: float64 reference" % (key, init))
            ref = reference_output(spec, weights, x)
            row = {"model": key, "init": init, "batch": args.batch, "seq": args.seq, "cols": {}}
            for p in precisions:
                col = "encc " + p
                if p in unavailable:
                    row["cols"][col] = unavailable[p]
                    continue
                b = builds[p]
                out = run_once(col, [b["exe"], weights, str(args.threads)],
                               e2e.encc_env(args.threads, None), args.batch, args.seq, inp, None,
                               os.path.join(b["dir"], "accuracy_out%s.f32" % suffix))
                row["cols"][col] = out if isinstance(out, str) else metrics(
                    out.reshape(ref.shape), ref)
            for col, graph in (("ORT fp32", onnx), ("ORT int8", onnx_int8),
                               ("ORT int8 7-bit", onnx7)):
                out = run_once(col, ["node", os.path.join(HERE, "ort_runner.js"), graph,
                                     str(args.threads)], e2e.peer_env(args.threads, False),
                               args.batch, args.seq, inp, None,
                               os.path.join(d, "accuracy_out_%s%s.f32"
                                            % (col.replace(" ", "_"), suffix)))
                row["cols"][col] = out if isinstance(out, str) else metrics(
                    out.reshape(ref.shape), ref)
            results.append(row)
            e2e.log("%s/%s: %s" % (key, init, json.dumps(row["cols"], default=str)))
    print_report(results, columns, args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return results


def print_report(results, columns, args):
    print()
    print("accuracy against the float64 reference (python/enc_dev/reference.py), same float32 weights; "
          "input x ~ N(0,1) [%d, %d, d_model], seed %d" % (args.batch, args.seq, args.seed))
    print("cosines shown as 1 - x: per-token cosine min and median, pooled = mean-pooled "
          "embedding (lowest over the batch); targets: pooled >= 1-1e-3 int8, >= 1-1e-4 bf16")
    hdr = ["model", "weights", "column", "max |err|", "cos min", "cos median", "pooled cos",
           "target"]
    table = []
    for row in results:
        for col in columns:
            m = row["cols"].get(col)
            if m is None:
                continue
            if isinstance(m, str):
                table.append([row["model"], row["init"], col, "n/a: " + m, "", "", "", ""])
                continue
            p = col.split()[-1] if col.startswith("encc") else None
            tgt = TARGETS.get(p)
            verdict = "" if tgt is None else ("met" if m["pooled_cos"] >= tgt else "NOT met")
            table.append([row["model"], row["init"], col, "%.2e" % m["max_abs"],
                          fmt_cos(m["cos_min"]), fmt_cos(m["cos_med"]),
                          fmt_cos(m["pooled_cos"]), verdict])
    e2e._print_table(hdr, table)
    for row in results:
        e, o = row["cols"].get("encc int8"), row["cols"].get("ORT int8")
        if isinstance(e, dict) and isinstance(o, dict):
            better = e["pooled_cos"] >= o["pooled_cos"] and e["max_abs"] <= o["max_abs"]
            print("%s/%s: encc int8 %s ORT int8 (pooled cosine and max |err|)"
                  % (row["model"], row["init"], "at least as accurate as" if better
                     else "LESS accurate than"))


if __name__ == "__main__":
    main()
