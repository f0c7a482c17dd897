#!/usr/bin/env python3
"""The tokenizer a library compiled in (NAME_tokenizer_file) against the
file it came from: how many tokens each keeps of a long text.

usage: truncation_check.py LIB.so NAME TOKENIZER_FILE
(PYTHONPATH naming python/, ENC_TOKENIZER_LIBRARY the tokenizer library)
"""
import ctypes
import sys

import enc

lib_path, name, file_path = sys.argv[1:4]
lib = ctypes.CDLL(lib_path)
fn = getattr(lib, name + "_tokenizer_file")
fn.restype = ctypes.c_int
fn.argtypes = [ctypes.c_void_p] * 3
data, size, file_name = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_char_p()
if fn(ctypes.addressof(data), ctypes.addressof(size), ctypes.addressof(file_name)) != 0:
    sys.exit("%s_tokenizer_file failed" % name)
compiled = enc.Tokenizer.from_bytes(ctypes.string_at(data.value, size.value),
                                    file_name.value.decode())
original = enc.Tokenizer.from_file(file_path)
text = " ".join("word%d" % i for i in range(400))
a, b = compiled.encode(text).ids, original.encode(text).ids
# The same tokens up to the cut, the last one the separator.
same = a[:-1] == b[:len(a) - 1] if len(a) <= len(b) else a[:len(b) - 1] == b[:-1]
print("compiled-in %d tokens (the file's own %d), same prefix %s" % (len(a), len(b), same))
