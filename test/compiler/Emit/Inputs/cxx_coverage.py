#!/usr/bin/env python3
"""Every C entry point a generated header declares has a C++ counterpart:
the header's RAII class for the encoder calls it. usage: cxx_coverage.py
HEADER ENCODER; prints one line per entry point and exits 1 on a miss."""
import re
import sys

text = open(sys.argv[1]).read()
name = sys.argv[2]
c_part, _, cxx_part = text.partition("namespace models {")
declared = re.findall(r"^[a-z_0-9 *]+\b(%s_[a-z_]+)\(" % re.escape(name), c_part, re.M)
match = re.search(r"class %s \{(.*?)\n\};" % re.escape(name), cxx_part, re.S)
body = match.group(1) if match else ""
missing = 0
for symbol in declared:
    covered = ("::%s(" % symbol) in body
    missing += not covered
    print("%s %s" % ("covered" if covered else "MISSING", symbol))
print("%d entry points, %d missing" % (len(declared), missing))
sys.exit(1 if missing or not declared else 0)
