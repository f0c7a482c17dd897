#!/usr/bin/python3
"""End-to-end benchmark: encc vs ONNX Runtime vs PyTorch on the same weights.

Run through bench/run_e2e.sh (which builds encc and the runtime and installs
the node dependencies); see bench/README.md. Run with /usr/bin/python3.

For every model: `encc X.enc -o model.o` (timed), the C++ runner
(encc_runner.cpp) built against it, random weights written once as F32
safetensors (python/enc_dev/reference.random_weights), the same file loaded into
torch.nn.TransformerEncoder (torch_runner.py) and exported with
torch.onnx.export for onnxruntime-node (ort_runner.js). For every thread count
the three runners are long-lived processes; for each configuration they get
the same input, their outputs are compared (max |x - encc| over the valid
rows), then they are timed run by run, interleaved (the order rotates every
round), so that drift hits all three alike.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
from enc_dev import metrics  # noqa: E402
from enc_dev import reference  # noqa: E402
from enc_dev import safetensors_io  # noqa: E402

PY = "/usr/bin/python3"
OPENBLAS_OPENMP = "/usr/lib/x86_64-linux-gnu/openblas-openmp"
ENGINES = ("encc", "ort", "torch")

# model key -> (.enc path relative to ROOT, encoder name)
MODELS = {
    "seed_toy": ("examples/seed_toy/seed_toy.enc", "seed_toy"),
    "tiny": ("bench/models/tiny.enc", "tiny"),
    "base2017": ("bench/models/transformer_base_emb.enc", "transformer_base_emb"),
    "bert": ("bench/models/bert_base_emb.enc", "bert_base_emb"),
    "bert_preln": ("bench/models/bert_base_emb.enc", "bert_base_emb_preln"),
    "minilm": ("bench/models/minilm_emb.enc", "minilm_emb"),
    "bert_int8": ("bench/models/bert_base_emb.enc", "bert_base_emb_int8"),
    "gated_bert": ("bench/models/families_emb.enc", "gated_bert_emb"),
    "modernbert": ("bench/models/families_emb.enc", "modernbert_emb"),
    "modernbert_local": ("bench/models/families_emb.enc", "modernbert_local_emb"),
    "mpnet": ("bench/models/families_emb.enc", "mpnet_emb"),
    "nomic": ("bench/models/families_emb.enc", "nomic_emb"),
    "bert_preln_long": ("bench/models/bert_base_emb.enc", "bert_base_emb_preln_long"),
    "modernbert_long": ("bench/models/families_emb.enc", "modernbert_long_emb"),
}
RAGGED = [int(v) for v in np.linspace(16, 128, 8)]  # 16, 32, ..., 128

def _config(name, lengths=None, alone=False):
    """(name, model, batch, seq, lengths (None: full), also time each
    sequence alone) from a name "model bBsS" (a '-' in the model's name is
    its key's '_'), or "model bB raggedLO-HI" with the lengths given."""
    model, shape = name.split(" ", 1)
    m = re.match(r"b(\d+)(?:s(\d+)|( ragged\d+-(\d+)))$", shape)
    if m is None:
        raise ValueError("configuration name %r is not 'model bBsS'" % name)
    seq = int(m.group(2) or m.group(4))
    return (name, model.replace("-", "_"), int(m.group(1)), seq, lengths, alone)


CONFIGS = [_config(n) for n in
           ["seed_toy b1s5", "tiny b1s128", "base2017 b1s128", "bert b1s128", "bert b8s128",
            "bert b1s512", "bert-preln b1s128"]] + [
    _config("bert b8 ragged16-128", RAGGED, True)]
QUICK_CONFIGS = ["seed_toy b1s5", "tiny b1s128", "tiny b8 ragged16-128"]
PRECISION_CONFIGS = ["bert b1s128", "bert b8s128"]
# The v2 families (bench/models/families_emb.enc; torch and ONNX Runtime run
# torch_runner.FamilyEncoder); bert-int8 is encc with precision = int8 (the
# peers run fp32: "diff" is then int8's error, not a disagreement). Long
# inputs (max_len 8,192): global attention as nomic-embed's pre-LN BERT-base
# stack, and ModernBERT's local/global stack; with --peer-rss for ONNX
# Runtime's peak memory beside encc's. Run them with --config.
EXTRA_CONFIGS = {c[0]: c for c in (
    [_config("tiny b8 ragged16-128", RAGGED, True)]
    + [_config(n) for n in
       ["gated-bert b1s128", "gated-bert b1s512", "modernbert b1s512", "modernbert-local b1s512",
        "mpnet b1s128", "mpnet b8s128", "nomic b1s128", "nomic b8s128", "nomic b1s2048",
        "bert-int8 b1s128", "bert-int8 b8s128"]]
    + [_config("%s b1s%d" % (n, L)) for L in (512, 2048, 8192)
       for n in ("bert-preln-long", "modernbert-long")])}


def log(msg):
    print("[e2e %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise SystemExit("command failed (%d): %s\n%s%s" % (r.returncode, " ".join(cmd),
                                                              r.stdout, r.stderr))
    return r


def flops(spec, lengths):
    """Useful FLOPs of one forward: the GEMMs and the two attention products
    over the valid rows of every sequence (padding not counted)."""
    d, f, n = spec["d_model"], spec["d_ff"], spec["blocks"]
    total = 0
    for L in lengths:
        total += n * (2 * L * (4 * d * d + 2 * d * f) + 4 * L * L * d)
    return total


# --------------------------------------------------------------------------
# runners
# --------------------------------------------------------------------------
class Runner:
    """A long-lived runner process speaking the line protocol of
    encc_runner.cpp / torch_runner.py / ort_runner.js."""

    def __init__(self, name, cmd, env):
        self.name = name
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=env, text=True, bufsize=1)
        first = self._read()
        if first[0] != "loaded":
            raise SystemExit("%s: unexpected first line %r" % (name, first))
        self.load_ms = float(first[1])
        self.threads_in_use = int(first[2])
        self.rss_before_load = int(first[3]) if len(first) > 3 else 0
        self.target = first[4] if len(first) > 4 else None  # encc's Highway target

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit("%s runner died (exit %s)" % (self.name, self.proc.wait()))
        return line.split()

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self._read()

    def case(self, b, s, inp, lens, out="-"):
        r = self.ask("case %d %d %s %s %s" % (b, s, inp, lens or "-", out))
        assert r[0] == "ok", r
        return int(r[1])

    def run(self, n):
        r = self.ask("run %d" % n)
        assert r[0] == "times", r
        i = r.index("cpu")
        return [float(v) for v in r[1:i]], float(r[i + 1]), float(r[i + 3])

    def rss(self):
        r = self.ask("rss")
        return int(r[1]), int(r[2])

    def close(self):
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        self.proc.wait(timeout=60)


def peer_env(threads, openblas_openmp):
    e = dict(os.environ)
    for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        e.pop(k, None)
    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        e[k] = str(threads)
    if openblas_openmp:
        e["LD_LIBRARY_PATH"] = OPENBLAS_OPENMP + (
            ":" + e["LD_LIBRARY_PATH"] if e.get("LD_LIBRARY_PATH") else "")
    return e


def encc_env(threads, target):
    e = dict(os.environ)
    e["ENC_NUM_THREADS"] = str(threads)
    e.pop("ENC_TARGET", None)
    if target:
        e["ENC_TARGET"] = target
    return e


def torch_env(threads, target):
    """torch's environment. With --target avx2, PyTorch's own kernels
    (ATEN_CPU_CAPABILITY) and OpenBLAS (OPENBLAS_CORETYPE=Haswell) are capped
    at AVX2 as well."""
    e = peer_env(threads, True)
    if target == "avx2":
        e["ATEN_CPU_CAPABILITY"] = "avx2"
        e["OPENBLAS_CORETYPE"] = "Haswell"
    return e


# Highway target (as the runtime names it) -> the instruction set whose FMA
# peak bounds it (fma_peak's names); other targets have no FMA peak.
TARGET_ISA = {"AVX3": "avx512", "AVX3_DL": "avx512", "AVX3_ZEN4": "avx512", "AVX2": "avx2"}


# --------------------------------------------------------------------------
# building
# --------------------------------------------------------------------------
class Paths:
    def __init__(self, build, work):
        self.build = build
        self.work = work
        self.encc = os.path.join(build, "bin", "encc")
        self.lib = os.path.join(build, "runtime", "libenc_runtime.a")
        self.include = os.path.join(ROOT, "runtime", "include")
        self.runtime_src = os.path.join(ROOT, "runtime")  # src/target.h
        self.cxx = os.environ.get("CXX") or shutil.which("c++") or "g++"
        self.link = ["-lpthread"]


def fma_peaks(paths, threads):
    """The FMA peaks from fma_peak (bench/fma_peak.cc): the build's binary, or
    the same source compiled here when the bench targets are not built.
    -> {(isa, threads): GFLOP/s}, isa "avx2" or "avx512"."""
    exe = os.path.join(paths.build, "bin", "fma_peak")
    source = "build/bin/fma_peak"
    if not os.path.exists(exe):
        exe = os.path.join(paths.work, "fma_peak")
        run([paths.cxx, "-std=c++17", "-O2", "-DENC_FMA_PEAK_MAIN",
             os.path.join(HERE, "fma_peak.cc"), "-o", exe, "-lpthread"])
        source = "bench/fma_peak.cc"
    out = run([exe]).stdout
    peaks = {(isa, int(t)): float(g) for isa, t, g in
             re.findall(r"isa=(\w+) threads=(\d+):\s*([\d.]+)", out)}
    return peaks, source


# --target -> the CPU encc compiles the model's own code for, so that none of
# it uses a wider instruction set than the runtime's capped kernels.
TARGET_MCPU = {"avx3_dl": "icelake-server", "avx3": "skylake-avx512", "avx512": "skylake-avx512",
               "avx2": "haswell", "sse4": "nehalem", "ssse3": "core2", "scalar": "x86-64"}


PRECISIONS = ("fp32", "int8", "bf16")  # the `precision` setting's choices (docs/numerics.md)


def precision_variant(paths, key, precision, d):
    """The .enc and encoder name encc compiles for `precision`: the model's own
    for fp32; otherwise a copy of its file with an encoder that inherits it and
    sets `precision`. Fails clearly when the built encc does not take the
    setting. -> (enc path, encoder name)"""
    enc_rel, encoder = MODELS[key]
    enc = os.path.join(ROOT, enc_rel)
    if precision == "fp32":
        return enc, encoder
    if precision not in PRECISIONS:
        raise SystemExit("unknown precision %r; known: %s" % (precision, ", ".join(PRECISIONS)))
    name = "%s_as_%s" % (encoder, precision)  # not a name the file may define
    os.makedirs(d, exist_ok=True)
    variant = os.path.join(d, "%s.enc" % name)
    with open(enc) as f:
        text = f.read()
    with open(variant, "w") as f:
        f.write(text + "\n// generated by bench/e2e.py\nencoder %s : %s {\n  precision = %s;\n}\n"
                % (name, encoder, precision))
    r = subprocess.run([paths.encc, variant, "--emit=spec", "--encoder=" + name],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("precision = %s: the built encc (%s) does not compile it:\n%s"
                         % (precision, paths.encc, r.stderr.strip() or r.stdout.strip()))
    return variant, name


def compile_encc(paths, key, target=None, precision="fp32", times=3):
    """encc (compile time: best of `times`) and encc_runner for one model in
    one precision. -> {"spec", "spec_path", "exe", "dir", "compile_s"}"""
    mcpu = ["--mcpu=" + TARGET_MCPU[target.lower()]] if target else []
    d = os.path.join(paths.work, key)
    if precision != "fp32":
        d = os.path.join(d, precision)
    enc, encoder = precision_variant(paths, key, precision, d)
    os.makedirs(d, exist_ok=True)
    spec_doc = json.loads(run([paths.encc, enc, "--emit=spec", "--encoder=" + encoder]).stdout)
    spec = spec_doc["encoders"][0]
    spec_path = os.path.join(d, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f, indent=1)
    obj = os.path.join(d, "model.o")
    compile_s = []
    for _ in range(times):
        t0 = time.perf_counter()
        run([paths.encc, enc, "--encoder=" + encoder, "-o", obj] + mcpu)
        compile_s.append(time.perf_counter() - t0)
    exe = os.path.join(d, "encc_runner")
    run([paths.cxx, "-std=c++17", "-O2", "-I" + paths.include, "-I" + paths.runtime_src,
         "-DENC_MODEL=" + encoder,
         "-DENC_D_MODEL=%d" % spec["d_model"],
         "-include", os.path.join(d, "model.h"), os.path.join(HERE, "encc_runner.cpp"), obj,
         paths.lib, "-o", exe] + paths.link)
    return {"spec": spec, "spec_path": spec_path, "exe": exe, "dir": d,
            "compile_s": min(compile_s)}


def bert_init_weights(spec, seed):
    """Weights of realistic scale, as BERT initialises them: linear weights
    N(0, 0.02^2), linear biases 0, norms weight 1 and bias 0 (tables, if any,
    N(0, 0.02^2) too)."""
    rng = np.random.default_rng(seed)
    w = {}
    for name, shape in reference.weight_shapes(spec).items():
        if "norm" in name:
            w[name] = np.ones(shape) if name.endswith(".weight") else np.zeros(shape)
        elif name.endswith(".bias") and not name.startswith("embed."):
            w[name] = np.zeros(shape)
        else:
            w[name] = 0.02 * rng.standard_normal(shape)
    return w


INITS = {"unit": reference.random_weights, "bert": bert_init_weights}


def ensure_weights(spec, seed, d, init="unit"):
    """F32 safetensors of `init` weights in d (cached by spec, seed and init)."""
    spec_key = {k: v for k, v in spec.items() if k not in ("location", "name", "precision")}
    stamp = json.dumps({"spec": spec_key, "seed": seed, "init": init}, sort_keys=True)
    suffix = "" if init == "unit" else "-" + init
    weights = os.path.join(d, "weights%s.safetensors" % suffix)
    stamp_path = os.path.join(d, "weights%s.stamp" % suffix)
    if not (_read(stamp_path) == stamp and os.path.exists(weights)):
        log("%s: %s weights (seed %d) -> %s" % (spec["name"], init, seed, weights))
        w = INITS[init](spec, seed)
        safetensors_io.write_safetensors(weights, {k: v.astype(np.float32) for k, v in w.items()},
                                         "F32")
        with open(stamp_path, "w") as f:
            f.write(stamp)
    return weights, stamp


def ensure_onnx(spec_path, weights, w_stamp, d, int8=False, suffix=""):
    """torch.onnx.export of the weights (cached); with int8 also ONNX Runtime's
    int8 graph of it (ort_int8.py). -> (fp32 onnx, int8 onnx or None)"""
    onnx = os.path.join(d, "model%s.onnx" % suffix)
    o_stamp = json.dumps({"weights": w_stamp,
                          "runner": _digest(os.path.join(HERE, "torch_runner.py"))}, sort_keys=True)
    o_stamp_path = os.path.join(d, "onnx%s.stamp" % suffix)
    if not (_read(o_stamp_path) == o_stamp and os.path.exists(onnx)):
        log("torch.onnx.export -> %s" % onnx)
        run([PY, os.path.join(HERE, "torch_runner.py"), "export", spec_path, weights, onnx],
            env=peer_env(1, False))
        with open(o_stamp_path, "w") as f:
            f.write(o_stamp)
    if not int8:
        return onnx, None
    q = os.path.join(d, "model%s_int8.onnx" % suffix)
    q_stamp = json.dumps({"onnx": o_stamp, "quantizer": _digest(os.path.join(HERE, "ort_int8.py"))},
                         sort_keys=True)
    q_stamp_path = os.path.join(d, "onnx%s_int8.stamp" % suffix)
    if not (_read(q_stamp_path) == q_stamp and os.path.exists(q)):
        run([PY, os.path.join(HERE, "ort_int8.py"), onnx, q])
        with open(q_stamp_path, "w") as f:
            f.write(q_stamp)
    return onnx, q


def build_model(paths, key, seed, skip_onnx, target=None, precision="fp32"):
    """encc (fp32, and `precision` when it is another) and the peers' graphs
    for one model, unit-scale weights."""
    m = compile_encc(paths, key, target)
    spec = m["spec"]
    d = m["dir"]
    weights, w_stamp = ensure_weights(spec, seed, d)
    onnx = onnx_int8 = None
    if not skip_onnx:
        onnx, onnx_int8 = ensure_onnx(m["spec_path"], weights, w_stamp, d, precision != "fp32")
    shapes = reference.weight_shapes(spec)
    m.update({"key": key, "weights": weights, "onnx": onnx, "onnx_int8": onnx_int8,
              "weight_bytes": 4 * sum(int(np.prod(s)) for s in shapes.values())})
    if precision != "fp32":
        m["precision"] = compile_encc(paths, key, target, precision)
    return m


def _read(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read()


def _digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def write_inputs(model, name, b, s, lengths, seed):
    d = os.path.join(model["dir"], re.sub(r"[^A-Za-z0-9_.-]", "_", name))
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((b, s, model["spec"]["d_model"])).astype("<f4")
    inp = os.path.join(d, "input.f32")
    x.tofile(inp)
    lens = None
    if lengths is not None:
        lens = os.path.join(d, "lengths.i32")
        np.asarray(lengths, dtype="<i4").tofile(lens)
    return d, inp, lens


# --------------------------------------------------------------------------
# measuring
# --------------------------------------------------------------------------
def interleaved(runners, warmup, runs, settle_ms):
    """Warm-up, then `runs` rounds of one forward each, engine order rotating
    every round. Each timed forward starts settle_ms after the previous one
    ended: all three engines' thread pools spin after a call (ORT's and
    OpenMP's for milliseconds), and without the pause the engine that comes
    next shares the cores with them. -> {engine: {"ms": [...], "cpu": s, "wall": s}}"""
    for r in runners.values():
        r.run(warmup)
    res = {k: {"ms": [], "cpu": 0.0, "wall": 0.0} for k in runners}
    order = list(runners)
    for i in range(runs):
        for k in order[i % len(order):] + order[:i % len(order)]:
            time.sleep(settle_ms / 1e3)
            ms, cpu, wall = runners[k].run(1)
            res[k]["ms"] += ms
            res[k]["cpu"] += cpu
            res[k]["wall"] += wall
    return res


def valid_rows_diff(a, b, bsz, s, d, lengths):
    a = a.reshape(bsz, s, d).astype(np.float64)
    b = b.reshape(bsz, s, d).astype(np.float64)
    m = 0.0
    for i in range(bsz):
        L = s if lengths is None else lengths[i]
        if L:
            m = max(m, float(np.abs(a[i, :L] - b[i, :L]).max()))
    return m


def bench_config(runners, model, cfg, args, seed):
    name, _, b, s, lengths, alone = cfg
    d = model["spec"]["d_model"]
    cdir, inp, lens = write_inputs(model, name, b, s, lengths, seed)
    outs, info = {}, {}
    for k, r in runners.items():
        out = os.path.join(cdir, "out.%s.f32" % k)
        info[k] = r.case(b, s, inp, lens, out)
        outs[k] = np.fromfile(out, dtype="<f4")
    diffs = {k: valid_rows_diff(outs[k], outs["encc"], b, s, d, lengths)
             for k in runners if k != "encc"}
    acc = None
    if args.precision:
        # Every engine against the float64 reference (enc_dev.metrics, as bench/accuracy.py
        # measures), before the timing starts.
        ref = metrics.reference_output(model["spec"], model["weights"],
                                        np.fromfile(inp, dtype="<f4").reshape(b, s, d), lengths)
        acc = {k: metrics.metrics(outs[k].reshape(b, s, d), ref, lengths) for k in runners}
    res = interleaved(runners, args.warmup, args.runs, args.settle_ms)
    row = {"config": name, "batch": b, "seq": s, "lengths": lengths, "diff": diffs,
           "accuracy": acc,
           "workspace": info["encc"], "torch_fast_path": bool(info["torch"]) if "torch" in info else None,
           "flops": flops(model["spec"], lengths or [s] * b), "res": res}
    if alone:
        row["alone"] = {}
        for i, L in enumerate(lengths):
            x = np.fromfile(inp, dtype="<f4").reshape(b, s, d)[i:i + 1, :L]
            one = os.path.join(cdir, "alone%d.f32" % L)
            x.tofile(one)
            for r in runners.values():
                r.case(1, L, one, None)
            row["alone"][L] = interleaved(runners, args.warmup, args.runs, args.settle_ms)
    return row


def rss_probe(model, cfg, seed, target, threads, exe=None):
    """A fresh encc runner (`exe`, default the model's fp32 one) of `threads`
    threads: load (timed), one forward of the config, ru_maxrss."""
    name, _, b, s, lengths, _ = cfg
    _, inp, lens = write_inputs(model, name, b, s, lengths, seed)
    r = Runner("encc", [exe or model["exe"], model["weights"], str(threads)],
               encc_env(threads, target))
    ws = r.case(b, s, inp, lens)
    r.run(1)
    rss, maxrss = r.rss()
    r.close()
    return {"load_ms": r.load_ms, "rss": rss, "ru_maxrss": maxrss, "rss_base": r.rss_before_load,
            "workspace": ws}


def vmhwm_bytes(pid):
    """Peak RSS (VmHWM) of a live process."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise SystemExit("no VmHWM in /proc/%d/status" % pid)


def ort_rss_probe(model, cfg, seed, threads):
    """A fresh ONNX Runtime runner of `threads` threads: one forward of the
    config, then its VmHWM (read from /proc while it is alive)."""
    name, _, b, s, lengths, _ = cfg
    _, inp, lens = write_inputs(model, name, b, s, lengths, seed)
    r = Runner("ort", ["node", os.path.join(HERE, "ort_runner.js"), model["onnx"], str(threads)],
               peer_env(threads, False))
    try:
        r.case(b, s, inp, lens)
        r.run(1)
        return vmhwm_bytes(r.proc.pid)
    finally:
        r.close()


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------
def med(v):
    return statistics.median(v)


def fmt_lat(v):
    return "%s [%s-%s]" % (_ms(med(v)), _ms(min(v)), _ms(max(v)))


def _ms(x):
    return "%.3g" % x if x < 10 else "%.0f" % x if x >= 100 else "%.1f" % x


def print_report(rows, peaks, peak_src, probes, models, args, load_avg):
    print()
    print("encc vs ONNX Runtime (onnxruntime-node, 'all') vs PyTorch %s (nn.TransformerEncoder fast "
          "path, OpenBLAS-OpenMP)" % _torch_version())
    print("latency ms: median [min-max] of %d interleaved runs after %d warm-up, %g ms apart; "
          "GFLOP/s and %%peak for encc (useful FLOPs, padding not counted)"
          % (args.runs, args.warmup, args.settle_ms))
    print("FMA peak (%s, best of start and end): %s" % (
        peak_src, ", ".join("%s %d thr %.1f GFLOP/s" % (isa, t, g)
                            for (isa, t), g in sorted(peaks.items()))))
    targets = sorted({row["target"] for row in rows if row.get("target")})
    print("encc ran the Highway target %s (ENC_TARGET=%s); %%peak is of that instruction set's "
          "FMA peak" % ("/".join(targets) or "?", args.target or "unset"))
    if args.target:
        print("peers: torch capped with ATEN_CPU_CAPABILITY and OPENBLAS_CORETYPE=Haswell"
              if args.target == "avx2" else "peers: torch not capped (only --target avx2 caps it)")
        print("       ONNX Runtime not capped: it has no switch for its instruction set (it runs "
              "the best the CPU has)")
    print("load average before the run: %s" % load_avg)
    hdr = ["config", "thr", "encc ms", "ORT ms", "torch ms", "GFLOP/s", "%peak", "ORT/encc",
           "torch/encc", "cpu/wall e|o|t", "|ORT-encc|", "|torch-encc|"]
    table = []
    for row in rows:
        r = row["res"]
        e, o = med(r["encc"]["ms"]), med(r["ort"]["ms"])
        torch_ran = "torch" in r  # not with --no-torch
        gf = row["flops"] / (e * 1e-3) * 1e-9
        pk = peaks.get((TARGET_ISA.get(row.get("target"), ""), row["threads"]))
        table.append([row["config"], str(row["threads"]), fmt_lat(r["encc"]["ms"]),
                      fmt_lat(r["ort"]["ms"]),
                      fmt_lat(r["torch"]["ms"]) if torch_ran else "-", "%.1f" % gf,
                      "%.0f%%" % (100 * gf / pk) if pk else "-", "%.2f" % (o / e),
                      "%.2f" % (med(r["torch"]["ms"]) / e) if torch_ran else "-",
                      "|".join("%.2f" % (r[k]["cpu"] / r[k]["wall"]) if k in r else "-"
                               for k in ENGINES),
                      "%.1e" % row["diff"]["ort"],
                      "%.1e" % row["diff"]["torch"] if torch_ran else "-"])
    _print_table(hdr, table)

    ragged = [row for row in rows if "alone" in row]
    if ragged:
        print()
        print("ragged batch vs the same sequences run alone (sum of the medians of batch-1 runs)")
        ran = [k for k in ENGINES if k in ragged[0]["res"]]
        hdr = ["config", "thr"] + sum([[k + " batch", k + " sum alone", k + " ratio"]
                                       for k in ran], [])
        table = []
        for row in ragged:
            line = [row["config"] + " " + ",".join(map(str, row["lengths"])), str(row["threads"])]
            for k in ran:
                bt = med(row["res"][k]["ms"])
                sa = sum(med(v[k]["ms"]) for v in row["alone"].values())
                line += [_ms(bt), _ms(sa), "%.2f" % (bt / sa)]
            table.append(line)
        _print_table(hdr, table)

    print()
    print("encc: compile time (best of 3), load (safetensors -> packed, fresh process of %d "
          "thread%s), memory" % (args.probe_threads, "" if args.probe_threads == 1 else "s"))
    print("peak RSS: VmHWM of the runner after load + one forward (ru_maxrss shown too: exec "
          "after vfork inherits the parent's high-water mark, here e2e.py's)")
    hdr = ["config", "encc compile s", "load ms", "fp32 weights MB", "workspace MB",
           "peak RSS MB", "ru_maxrss MB", "RSS before load MB", "peak/(weights+ws)",
           "(peak-before)/(weights+ws)", "(peak-before)/weights"]
    peer = any("ort_rss" in p for p in probes.values())
    if peer:
        hdr += ["ORT peak RSS MB", "ORT peak/weights"]
    table = []
    for name, p in probes.items():
        m = models[p["model"]]
        wb = m["weight_bytes"]
        line = [name, "%.3f" % m["compile_s"], "%.1f" % p["load_ms"], "%.1f" % (wb / 1e6),
                "%.2f" % (p["workspace"] / 1e6), "%.1f" % (p["rss"] / 1e6),
                "%.1f" % (p["ru_maxrss"] / 1e6), "%.1f" % (p["rss_base"] / 1e6),
                "%.2f" % (p["rss"] / (wb + p["workspace"])),
                "%.2f" % ((p["rss"] - p["rss_base"]) / (wb + p["workspace"])),
                "%.2f" % ((p["rss"] - p["rss_base"]) / wb)]
        if peer:
            line += (["%.1f" % (p["ort_rss"] / 1e6), "%.2f" % (p["ort_rss"] / wb)]
                     if "ort_rss" in p else ["-", "-"])
        table.append(line)
    _print_table(hdr, table)
    fast = sorted({row["config"] for row in rows if row["torch_fast_path"] is False})
    if fast:
        print("note: torch did not take its fused fast path on: " + ", ".join(fast))


def print_precision_report(rows, peaks, probes, models, args, load_avg):
    """--precision P: encc P against ONNX Runtime int8 and fp32 and encc fp32,
    with each one's accuracy against the float64 reference."""
    P = args.precision
    eng = [("encc_p", "encc " + P), ("ort_int8", "ORT int8"), ("ort", "ORT fp32"),
           ("encc", "encc fp32")]
    print()
    print("encc precision = %s vs ONNX Runtime int8 (DynamicQuantizeMatMul, int8 weights, "
          "per-column scales; bench/ort_int8.py) vs ONNX Runtime fp32 vs encc fp32" % P)
    print("latency ms: median [min-max] of %d interleaved runs after %d warm-up, %g ms apart"
          % (args.runs, args.warmup, args.settle_ms))
    targets = sorted({row.get("target_p") or "?" for row in rows})
    print("encc ran the Highway target %s (ENC_TARGET=%s); ONNX Runtime runs the best the CPU has"
          % ("/".join(targets), args.target or "unset"))
    print("FMA peak: %s" % ", ".join("%s %d thr %.1f GFLOP/s" % (isa, t, g)
                                     for (isa, t), g in sorted(peaks.items())))
    print("load average before the run: %s" % load_avg)
    hdr = (["config", "thr"] + ["%s ms" % n for _, n in eng]
           + ["ORTi8/encc%s" % P, "ORTf32/encc%s" % P, "enccf32/encc%s" % P])
    table = []
    for row in rows:
        r = row["res"]
        m = {k: med(r[k]["ms"]) for k, _ in eng}
        table.append([row["config"], str(row["threads"])] + [fmt_lat(r[k]["ms"]) for k, _ in eng]
                     + ["%.2f" % (m["ort_int8"] / m["encc_p"]), "%.2f" % (m["ort"] / m["encc_p"]),
                        "%.2f" % (m["encc"] / m["encc_p"])])
    _print_table(hdr, table)
    print()
    print("accuracy against the float64 reference on the same input and weights (unit-scale); "
          "cosines as 1 - x (per-token min and median; pooled = mean-pooled embedding)")
    hdr = ["config"] + sum([["%s max|err|" % n, "%s cos min" % n, "%s pooled" % n]
                            for _, n in eng], [])
    table, seen = [], set()
    for row in rows:
        if row["config"] in seen:  # the same outputs at every thread count
            continue
        seen.add(row["config"])
        a = row["accuracy"]
        table.append([row["config"]] + sum([["%.2e" % a[k]["max_abs"],
                                              metrics.fmt_cos(a[k]["cos_min"]),
                                              metrics.fmt_cos(a[k]["pooled_cos"])]
                                             for k, _ in eng], []))
    _print_table(hdr, table)
    print()
    print("load (safetensors -> packed, fresh process, %d thread(s)) and peak RSS"
          % args.probe_threads)
    hdr = ["config", "load ms", "peak RSS MB", "workspace MB"]
    _print_table(hdr, [[name, "%.1f" % p["load_ms"], "%.1f" % (p["rss"] / 1e6),
                        "%.2f" % (p["workspace"] / 1e6)] for name, p in probes.items()])


def _torch_version():
    try:
        return run([PY, "-c", "import torch; print(torch.__version__)"]).stdout.strip()
    except SystemExit:
        return "?"


def _print_table(hdr, table):
    w = [max(len(str(x)) for x in col) for col in zip(hdr, *table)]
    for line in [hdr] + table:
        print("  ".join(str(x).ljust(n) if i == 0 else str(x).rjust(n)
                        for i, (x, n) in enumerate(zip(line, w))))


# --------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: %s, 5 runs, 1 warm-up" % ", ".join(QUICK_CONFIGS))
    ap.add_argument("--runs", type=int, default=None, help="timed runs per engine (default 25)")
    ap.add_argument("--warmup", type=int, default=None, help="warm-up runs (default 3)")
    ap.add_argument("--settle-ms", type=float, default=20.0,
                    help="pause before each timed forward, so that the previous engine's "
                         "spinning threads are idle (default 20; 0: back to back)")
    ap.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    ap.add_argument("--config", action="append", default=[],
                    help="run only these configurations (repeatable; names as printed)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=None, help="scratch (default BUILD/bench-e2e)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None, help="also write the raw results here")
    ap.add_argument("--target", default=None,
                    help="cap encc's Highway target (ENC_TARGET, e.g. avx2) and compile the "
                         "model for a CPU of that level; with avx2, torch is capped too; ONNX "
                         "Runtime cannot be")
    ap.add_argument("--peer-rss", action="store_true",
                    help="also measure ONNX Runtime's peak RSS per configuration (a fresh "
                         "runner, one forward)")
    ap.add_argument("--probe-threads", type=int, default=1,
                    help="threads of the fresh runners that measure load time and peak RSS "
                         "(default 1)")
    ap.add_argument("--no-torch", action="store_true",
                    help="time encc and ONNX Runtime only (torch takes minutes a forward on "
                         "the long inputs: ModernBERT's 1 x 8,192 about 10)")
    ap.add_argument("--precision", default=None, choices=[p for p in PRECISIONS if p != "fp32"],
                    help="rows of encc compiled with `precision = P` against ONNX Runtime's "
                         "int8 (DynamicQuantizeMatMul, ort_int8.py) and fp32 graphs and encc "
                         "fp32, with each one's accuracy against the float64 reference "
                         "(default configurations: %s)" % ", ".join(PRECISION_CONFIGS))
    args = ap.parse_args()
    args.runs = args.runs or (5 if args.quick else 25)
    args.warmup = args.warmup if args.warmup is not None else (1 if args.quick else 3)
    threads = [int(t) for t in args.threads.split(",")]
    all_configs = CONFIGS + list(EXTRA_CONFIGS.values())
    names = args.config or (QUICK_CONFIGS if args.quick else PRECISION_CONFIGS if args.precision
                            else [c[0] for c in CONFIGS])
    by_name = {c[0]: c for c in all_configs}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise SystemExit("unknown configuration(s) %s; known: %s" % (unknown, list(by_name)))
    configs = [by_name[n] for n in names]
    if args.target and args.target.lower() not in TARGET_MCPU:
        raise SystemExit("unknown --target %s; known: %s" % (args.target, ", ".join(TARGET_MCPU)))
    paths = Paths(args.build, args.work or os.path.join(args.build, "bench-e2e"))
    os.makedirs(paths.work, exist_ok=True)
    load_avg = open("/proc/loadavg").read().split()[:3]

    if args.precision:  # fail before anything runs if encc lacks the setting
        for key in {c[1] for c in configs}:
            precision_variant(paths, key, args.precision,
                              os.path.join(paths.work, key, args.precision))
    peaks, peak_src = fma_peaks(paths, threads)
    log("FMA peak from %s: %s" % (peak_src, peaks))
    models = {}
    for c in configs:
        if c[1] not in models:
            log("building %s" % c[1])
            models[c[1]] = build_model(paths, c[1], args.seed, False, args.target,
                                       args.precision or "fp32")

    probes = {}
    for c in configs:
        p = rss_probe(models[c[1]], c, args.seed, args.target, args.probe_threads)
        p["model"] = c[1]
        if args.peer_rss:
            p["ort_rss"] = ort_rss_probe(models[c[1]], c, args.seed, args.probe_threads)
        probes[c[0]] = p
        if args.precision:
            p = rss_probe(models[c[1]], c, args.seed, args.target, args.probe_threads,
                          models[c[1]]["precision"]["exe"])
            p["model"] = c[1]
            probes["%s %s" % (c[0], args.precision)] = p

    rows = []
    for t in threads:
        for key, m in models.items():
            log("threads %d, %s: starting runners" % (t, key))
            runners = {
                "encc": Runner("encc", [m["exe"], m["weights"], str(t)],
                               encc_env(t, args.target)),
                "ort": Runner("ort", ["node", os.path.join(HERE, "ort_runner.js"), m["onnx"], str(t)],
                              peer_env(t, False)),
            }
            if args.precision:
                runners["encc_p"] = Runner("encc " + args.precision,
                                           [m["precision"]["exe"], m["weights"], str(t)],
                                           encc_env(t, args.target))
                runners["ort_int8"] = Runner("ort int8", ["node", os.path.join(HERE, "ort_runner.js"),
                                                          m["onnx_int8"], str(t)],
                                             peer_env(t, False))
            elif not args.no_torch:
                runners["torch"] = Runner("torch", [PY, os.path.join(HERE, "torch_runner.py"),
                                                    "serve", m["spec_path"], m["weights"], str(t)],
                                          torch_env(t, args.target))
            try:
                for c in configs:
                    if c[1] != key:
                        continue
                    log("threads %d: %s" % (t, c[0]))
                    row = bench_config(runners, m, c, args, args.seed)
                    row["threads"] = t
                    row["target"] = runners["encc"].target
                    if args.precision:
                        row["target_p"] = runners["encc_p"].target
                    row["load_ms"] = {k: r.load_ms for k, r in runners.items()}
                    rows.append(row)
            finally:
                for r in runners.values():
                    r.close()
    order = {c[0]: i for i, c in enumerate(configs)}
    rows.sort(key=lambda r: (order[r["config"]], r["threads"]))
    # A peak measured while something else briefly held a core comes out low
    # (seen: 2 threads = 1 thread): measure again at the end, keep the best.
    peaks_end, _ = fma_peaks(paths, threads)
    log("FMA peak at the end: %s" % peaks_end)
    peaks = {k: max(peaks.get(k, 0), peaks_end.get(k, 0)) for k in set(peaks) | set(peaks_end)}
    if args.precision:
        print_precision_report(rows, peaks, probes, models, args, " ".join(load_avg))
    else:
        print_report(rows, peaks, peak_src, probes, models, args, " ".join(load_avg))
    print("load average after the run: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "probes": probes,
                       "peaks": {"%s/%d" % k: v for k, v in peaks.items()},
                       "models": {k: {kk: vv for kk, vv in v.items() if kk != "spec"}
                                  for k, v in models.items()}}, f, indent=1, default=str)


if __name__ == "__main__":
    main()
