"""Writes hostile or huge .enc inputs for the robustness tests.

usage: generate.py KIND OUTPUT
"""
import random
import sys

kind, out = sys.argv[1], sys.argv[2]
rng = random.Random(1234)

if kind == "binary":
    # Random bytes, NULs and invalid UTF-8 included.
    data = bytes(rng.randrange(256) for _ in range(64 * 1024))
elif kind == "nul":
    data = b"encoder m {\n  d_model = 8;\x00\n  heads = 2;\n}\n"
elif kind == "bad-utf8":
    data = b"encoder m { // caf\xc3\xa9 is fine in a comment\n  d_model = 8; \xff\xfe\n  heads = 2;\n  blocks = \xc0\xaf;\n}\n"
elif kind == "deep-parens":
    data = ("encoder m {\n  d_model = " + "(" * 10000 + "8" + ")" * 10000 +
            ";\n  heads = 2;\n}\n").encode()
elif kind == "deep-minus":
    data = ("encoder m {\n  d_model = " + "- " * 10000 + "8;\n  heads = 2;\n}\n").encode()
elif kind == "long-number":
    data = ("encoder m {\n  d_model = " + "9" * 100 + ";\n  heads = 2;\n}\n").encode()
elif kind == "long-float":
    data = ("encoder m {\n  d_model = 8;\n  heads = 2;\n  eps = 1" + "0" * 400 + ".5;\n}\n").encode()
elif kind == "long-line":
    # 10 MB on one line: the diagnostic shows a window, not the line.
    data = ("encoder m { d_model = 8; heads = 2; " + "blocks = 1; " * 900000 + "}").encode()
elif kind == "big":
    # About 10 MB of valid encoders, each inheriting from the one before.
    parts = ["encoder e0 { d_model = 64; heads = 4; d_ff = 4 * d_model; }\n"]
    i = 1
    size = len(parts[0])
    while size < 10 * 1024 * 1024:
        heads = [1, 2, 4, 8][i % 4]
        text = ("// encoder %d\nencoder e%d : e%d {\n  d_model = %d * heads;\n"
                "  heads = %d;\n  blocks = (%d %% 12) + 1;\n  max_len = 128 * 4;\n"
                "  positional = rope(base = 10000.0, style = halves);\n"
                "  eps = 1e-6; /* comment */ activation = gelu;\n}\n"
                % (i, i, i - 1, 16, heads, i)).replace("%", "")
        # keep the expression legal: blocks = (i 12) is not, so write it out
        text = text.replace("(%d  12) + 1" % i, str(i % 12 + 1))
        parts.append(text)
        size += len(text)
        i += 1
    data = "".join(parts).encode()
    sys.stderr.write("generate.py: %d encoders, %d bytes\n" % (i, len(data)))
else:
    sys.exit("unknown kind " + kind)

with open(out, "wb") as f:
    f.write(data)
