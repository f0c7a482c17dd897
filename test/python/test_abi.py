#!/usr/bin/env python3
"""The Python package's ctypes declarations (python/enc/_library.py) against
the C headers they mirror: abi_layout.c, compiled against runtime/include,
prints each struct's size and field offsets and the enums' values, and every
one must equal what ctypes computes from the package's declarations. A field
added to a C struct changes its size, so the test fails until the package
declares it too.

usage: test_abi.py LAYOUT_JSON   (PYTHONPATH naming python/)
"""
import ctypes
import json
import sys

sys.dont_write_bytecode = True
from enc import _library as lib  # noqa: E402
from enc_dev.checks import check, finish  # noqa: E402



def compare_struct(name, py_type, c):
    check(ctypes.sizeof(py_type) == c["size"],
          "%s: sizeof %d (ctypes) == %d (C)" % (name, ctypes.sizeof(py_type), c["size"]))
    py_fields = [f[0] for f in py_type._fields_]
    check(py_fields == list(c["fields"]),
          "%s: fields %s (ctypes) == %s (C)" % (name, py_fields, list(c["fields"])))
    for field, (offset, size) in c["fields"].items():
        if field not in py_fields:
            continue
        desc = getattr(py_type, field)
        check(desc.offset == offset and desc.size == size,
              "%s.%s: offset %d size %d (ctypes) == offset %d size %d (C)"
              % (name, field, desc.offset, desc.size, offset, size))


def main():
    with open(sys.argv[1]) as f:
        c = json.load(f)
    compare_struct("enc_input", lib.EncInput, c["enc_input"])
    compare_struct("enc_encoder_info", lib.EncoderInfo, c["enc_encoder_info"])
    check(lib.ABI_VERSION == c["abi_version"],
          "ABI_VERSION %d == ENC_LIBRARY_ABI_VERSION %d" % (lib.ABI_VERSION, c["abi_version"]))
    # The statuses the binding names, in the C enum's order after ENC_OK.
    statuses = {"ENC_ERR_" + s.upper(): i + 1 for i, s in enumerate(lib.STATUSES)}
    statuses["ENC_OK"] = 0
    check(statuses == c["enc_status"],
          "STATUSES %s == enc_status %s" % (sorted(statuses.items()), sorted(c["enc_status"].items())))
    pools = {"ENC_POOL_" + p.upper(): i for i, p in enumerate(lib.POOLINGS)}
    check(pools == c["enc_pool_mode"],
          "POOLINGS %s == enc_pool_mode %s" % (sorted(pools.items()), sorted(c["enc_pool_mode"].items())))
    heads = {"ENC_HEAD_" + h.upper(): i for i, h in enumerate(lib.HEADS)}
    check(heads == c["enc_head_kind"],
          "HEADS %s == enc_head_kind %s" % (sorted(heads.items()), sorted(c["enc_head_kind"].items())))
    scores = {"ENC_SCORES_" + s.upper(): i for i, s in enumerate(lib.SCORES)}
    check(scores == c["enc_scores"],
          "SCORES %s == enc_scores %s" % (sorted(scores.items()), sorted(c["enc_scores"].items())))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
