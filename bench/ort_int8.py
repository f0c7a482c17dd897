#!/usr/bin/python3
"""ONNX Runtime's int8 peer: the fp32 graph torch_runner.py exports, with every
linear layer's MatMul (or Gemm) replaced by com.microsoft.DynamicQuantizeMatMul.

  ort_int8.py IN.onnx OUT.onnx [--reduce-range]

This is the node ONNX Runtime's own dynamic quantizer ends up with for a MatMul
whose B is a constant (quantize_dynamic(..., per_channel=True), after its
MatMulIntegerToFloat fusion): B stored int8, symmetric, one scale per output
column (scale_n = max_k |B[k, n]| / 127, zero point 0 as an int8 tensor of the
scales' shape), A quantized per call by the kernel (u8, asymmetric, one
scale and zero point per tensor), int32 accumulation, fp32 result. The bias
stays where the export put it: the Add after a MatMul is kept; a Gemm's C
becomes DynamicQuantizeMatMul's bias input (same sum, one node).

--reduce-range quantizes B to 7 bits ([-63, 63]), what quantize_dynamic's
reduce_range=True does to stay clear of the saturation of vpmaddubsw on CPUs
without VNNI. Default: full 8 bits, as quantize_dynamic's default.

Only MatMuls whose B is a 2-D initializer are linear layers; the attention
products (Q K^T, P V) have computed operands and stay fp32, as in encc.
Written with Debian's python3-onnx (scripts/bootstrap.sh installs it).
"""
import argparse
import sys

import numpy as np

sys.dont_write_bytecode = True


def quantize_columns(b, qmax):
    """b [K, N] float -> (int8 [K, N], float32 scales [N]), symmetric per column."""
    b = np.asarray(b, dtype=np.float32)
    amax = np.abs(b).max(axis=0)
    scale = np.where(amax > 0, amax / qmax, 1.0).astype(np.float32)
    q = np.clip(np.rint(b / scale), -qmax, qmax).astype(np.int8)
    return q, scale


def quantize_model(model, reduce_range=False):
    """Rewrites `model` (an onnx.ModelProto) in place; returns the number of
    linear layers replaced."""
    import onnx
    from onnx import helper, numpy_helper

    g = model.graph
    qmax = 63 if reduce_range else 127
    inits = {t.name: t for t in g.initializer}
    uses = {}
    for n in g.node:
        for i in n.input:
            uses[i] = uses.get(i, 0) + 1
    new_nodes, new_inits, dropped = [], [], set()
    replaced = 0

    def quantized(name, b):
        q, scale = quantize_columns(b, qmax)
        base = name.replace("/", "_").strip("_")
        new_inits.append(numpy_helper.from_array(q, base + "_quantized"))
        new_inits.append(numpy_helper.from_array(scale, base + "_scale"))
        new_inits.append(numpy_helper.from_array(np.zeros_like(q[0]), base + "_zero_point"))
        return [base + "_quantized", base + "_scale", base + "_zero_point"]

    for n in g.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        if (n.op_type == "MatMul" and n.input[1] in inits
                and len(inits[n.input[1]].dims) == 2):
            b = numpy_helper.to_array(inits[n.input[1]])
            q = quantized(n.input[1], b)
            new_nodes.append(helper.make_node(
                "DynamicQuantizeMatMul", [n.input[0]] + q, list(n.output),
                name=n.name + "_quant", domain="com.microsoft"))
            if uses[n.input[1]] == 1:
                dropped.add(n.input[1])
            replaced += 1
        elif (n.op_type == "Gemm" and n.input[1] in inits
              and len(inits[n.input[1]].dims) == 2
              and attrs.get("alpha", 1.0) == 1.0 and attrs.get("beta", 1.0) == 1.0
              and not attrs.get("transA", 0)
              and (len(n.input) < 3 or n.input[2] in inits)):
            b = numpy_helper.to_array(inits[n.input[1]])
            if attrs.get("transB", 0):
                b = b.T
            q = quantized(n.input[1], b)
            bias = [n.input[2]] if len(n.input) > 2 and n.input[2] else [""]
            new_nodes.append(helper.make_node(
                "DynamicQuantizeMatMul", [n.input[0]] + q + bias, list(n.output),
                name=n.name + "_quant", domain="com.microsoft"))
            if uses[n.input[1]] == 1:
                dropped.add(n.input[1])
            replaced += 1
        else:
            new_nodes.append(n)
    del g.node[:]
    g.node.extend(new_nodes)
    kept = [t for t in g.initializer if t.name not in dropped]
    del g.initializer[:]
    g.initializer.extend(kept + new_inits)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.checker.check_model(model)
    return replaced


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--reduce-range", action="store_true")
    args = ap.parse_args(argv)
    import onnx
    model = onnx.load(args.src)
    n = quantize_model(model, args.reduce_range)
    if n == 0:
        raise SystemExit("ort_int8.py: %s has no MatMul/Gemm with a constant 2-D B" % args.src)
    onnx.save(model, args.dst)
    print("ort_int8.py: %d linear layers -> DynamicQuantizeMatMul (%d-bit weights) in %s"
          % (n, 7 if args.reduce_range else 8, args.dst), file=sys.stderr)


if __name__ == "__main__":
    main()
