"""encc's Python package: run encoders compiled by encc on numpy arrays.

    encc model.enc --emit=shared -o libmodel.so      # the encoders + runtime
    >>> import enc
    >>> m = enc.load("libmodel.so", "model.safetensors")
    >>> y = m.forward(ids)                            # int32 [B, S] -> float32
    >>> y, p = m.forward(ids, attention=True)         # p: [blocks, B, heads, S, S]
    >>> tok = enc.Tokenizer.from_file("tokenizer.json")  # as HF tokenizers
    >>> tok.encode("Hello, world!").ids

One binding serves every library: it reads the encoders' description the
library exports (enc/library.h) and calls the C ABI (docs/c-abi.md) through
ctypes, which releases the GIL during each call. docs/python.md has more.
"""
from ._library import Error, set_num_threads
from ._model import Model, load, pack
from ._tokenizer import Encoding, Tokenizer

__all__ = ["Encoding", "Error", "Model", "Tokenizer", "load", "pack",
           "set_num_threads"]
