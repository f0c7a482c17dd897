#!/usr/bin/env python3
"""Checks that the tree's C and C++ files are as clang-format-19 formats them
(.clang-format: Google style, LLVM style in lang/, compiler/ and test/lang/).

  check_format.py [--root DIR] [FILE...]     list what is not formatted
  check_format.py --fix [--root DIR]         format the tree in place

Without FILEs: every .h, .hpp, .c, .cc and .cpp under the source folders,
except test inputs (Inputs/ folders, which hold golden and hostile files as
they must be). Exits 1 when a file differs, naming it and its first changed
line.
"""
import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tree_files import tree_files  # noqa: E402

EXTS = (".h", ".hpp", ".c", ".cc", ".cpp")
CLANG_FORMAT = "clang-format-19"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--fix", action="store_true")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    exe = shutil.which(CLANG_FORMAT)
    if exe is None:
        print("check_format: %s is not installed (scripts/bootstrap.sh installs it)"
              % CLANG_FORMAT)
        return 2
    files = args.files or [os.path.join(args.root, f) for f in tree_files(args.root, EXTS)]
    if args.fix:
        subprocess.run([exe, "-i", "--style=file"] + files, check=True)
        print("formatted %d files" % len(files))
        return 0
    bad = 0
    for f in files:
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        r = subprocess.run([exe, "--style=file", "--assume-filename=" + f],
                           input=text, capture_output=True, text=True)
        if r.returncode != 0:
            print("%s: clang-format failed: %s" % (f, r.stderr.strip()))
            bad += 1
            continue
        if r.stdout != text:
            ours, theirs = text.splitlines(), r.stdout.splitlines()
            line = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b),
                        min(len(ours), len(theirs)))
            print("%s:%d: not clang-formatted" % (os.path.relpath(f, args.root), line + 1))
            bad += 1
    print("%d files checked, %d not formatted" % (len(files), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
