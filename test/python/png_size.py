#!/usr/bin/env python3
"""Prints "PNG <width> x <height>" from a PNG's signature and IHDR chunk, or
"not a PNG". usage: png_size.py FILE"""
import struct
import sys

with open(sys.argv[1], "rb") as f:
    head = f.read(24)
if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
    print("not a PNG")
else:
    print("PNG %d x %d" % struct.unpack(">II", head[16:24]))
