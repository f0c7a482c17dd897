"""enc.Tokenizer: the runtime's tokenizers (enc/tokenizer.h) from Python,
with Hugging Face ``tokenizers``' names so that code changes one import.

    >>> tok = enc.Tokenizer.from_file("bge-small-en-v1.5/tokenizer.json")
    >>> e = tok.encode("Hello, world!")
    >>> e.ids, e.tokens, e.offsets
    ([101, 7592, 1010, 2088, 999, 102], ['[CLS]', 'hello', ...], [(0, 0), (0, 5), ...])

The tokenizer is a shared library of its own (libenc_tokenizer.so), found
beside this package (where ``cmake --install`` puts it) or at
``$ENC_TOKENIZER_LIBRARY``. Encoding releases the GIL; one Tokenizer may
encode on many threads at once.
"""
import ctypes
import os
import threading
from typing import List, Optional, Sequence, Tuple, Union

from ._library import Error, STATUSES

__all__ = ["Encoding", "Tokenizer"]

_lib = None
_lib_lock = threading.Lock()

_TRUNCATIONS = {"longest_first": 0, "only_first": 1, "only_second": 2}


def _library() -> ctypes.CDLL:
    """libenc_tokenizer.so, loaded once, its functions typed."""
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        path = os.environ.get("ENC_TOKENIZER_LIBRARY") or os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "libenc_tokenizer.so")
        if not os.path.isfile(path):
            raise Error("io", "enc.Tokenizer: the tokenizer library is not at "
                        "%s (install encc, or set ENC_TOKENIZER_LIBRARY)" % path)
        lib = ctypes.CDLL(path)
        p, i32, sz = ctypes.c_void_p, ctypes.c_int32, ctypes.c_size_t
        pi32 = ctypes.POINTER(ctypes.c_int32)
        pi64 = ctypes.POINTER(ctypes.c_int64)
        sig = {
            "enc_tokenizer_open": (ctypes.c_int, [ctypes.c_char_p, p]),
            "enc_tokenizer_open_vocab": (ctypes.c_int,
                                         [ctypes.c_char_p, ctypes.c_int, p]),
            "enc_tokenizer_open_memory": (ctypes.c_int,
                                          [ctypes.c_char_p, sz,
                                           ctypes.c_char_p, p]),
            "enc_tokenizer_truncation_length": (i32, [p]),
            "enc_tokenizer_free": (None, [p]),
            "enc_tokenizer_set_truncation": (ctypes.c_int, [p, i32, ctypes.c_int]),
            "enc_tokenizer_set_padding": (ctypes.c_int, [p, i32]),
            "enc_tokenizer_encode": (ctypes.c_int,
                                     [p, ctypes.c_char_p, sz, ctypes.c_char_p,
                                      sz, ctypes.c_int, p]),
            "enc_encoding_free": (None, [p]),
            "enc_encoding_length": (i32, [p]),
            "enc_encoding_ids": (pi32, [p]),
            "enc_encoding_type_ids": (pi32, [p]),
            "enc_encoding_attention_mask": (pi32, [p]),
            "enc_encoding_sequence_ids": (pi32, [p]),
            "enc_encoding_offsets": (pi64, [p]),
            "enc_encoding_token": (ctypes.c_void_p, [p, i32]),
            "enc_encoding_token_length": (sz, [p, i32]),
            "enc_tokenizer_decode": (ctypes.c_int,
                                     [p, pi32, i32, ctypes.c_int,
                                      ctypes.c_char_p, sz,
                                      ctypes.POINTER(ctypes.c_size_t)]),
            "enc_tokenizer_token_to_id": (i32, [p, ctypes.c_char_p, sz]),
            "enc_tokenizer_id_to_token": (ctypes.c_char_p, [p, i32]),
            "enc_tokenizer_vocab_size": (i32, [p]),
            "enc_last_error": (ctypes.c_char_p, []),
            "enc_status_name": (ctypes.c_char_p, [ctypes.c_int]),
        }
        for name, (restype, argtypes) in sig.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
        _lib = lib
        return lib


def _raise(lib: ctypes.CDLL, code: int) -> None:
    if code == 0:
        return
    name = lib.enc_status_name(code).decode().lower().replace("enc_err_", "")
    message = (lib.enc_last_error() or b"").decode("utf-8", "replace")
    raise Error(name if name in STATUSES else "input", message)


def _utf8(text: str, what: str) -> bytes:
    """text as UTF-8; a lone surrogate (which UTF-8 cannot hold) goes
    through as its bytes, for the runtime to refuse naming the offset."""
    if not isinstance(text, str):
        raise Error("input", "%s: expected str, got %s" % (what,
                                                           type(text).__name__))
    return text.encode("utf-8", "surrogatepass")


def _char_index(data: bytes) -> List[int]:
    """For each byte offset of UTF-8 `data` that starts a code point (and
    for len(data)), its code point index: HF's Python binding gives offsets
    in characters of the str."""
    index = [0] * (len(data) + 1)
    cps = 0
    for at, byte in enumerate(data):
        index[at] = cps
        if (byte & 0xC0) != 0x80:
            cps += 1
    index[len(data)] = cps
    return index


class Encoding:
    """One encoded text (or pair), as HF's ``Encoding``: ``ids``,
    ``type_ids``, ``tokens``, ``offsets`` (code point indices into the str
    each token came from; (0, 0) for special tokens), ``attention_mask``,
    ``special_tokens_mask``, ``sequence_ids`` (0, 1 or None)."""

    __slots__ = ("ids", "type_ids", "tokens", "offsets", "attention_mask",
                 "special_tokens_mask", "sequence_ids")

    def __init__(self, ids, type_ids, tokens, offsets, attention_mask,
                 sequence_ids) -> None:
        self.ids: List[int] = ids
        self.type_ids: List[int] = type_ids
        self.tokens: List[str] = tokens
        self.offsets: List[Tuple[int, int]] = offsets
        self.attention_mask: List[int] = attention_mask
        self.sequence_ids: List[Optional[int]] = sequence_ids
        self.special_tokens_mask: List[int] = [
            1 if s is None and m else 0 for s, m in zip(sequence_ids,
                                                        attention_mask)]

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return "Encoding(num_tokens=%d, ids=%r)" % (len(self.ids), self.ids)


class Tokenizer:
    """A tokenizer.json (WordPiece, BPE, Unigram) or BERT vocab.txt, encoded
    exactly as Hugging Face ``tokenizers`` encodes it, or a SentencePiece
    unigram .model, encoded as SentencePiece does (docs/tokenizers.md)."""

    def __init__(self, handle: int) -> None:
        self._lib = _library()
        self._handle = handle

    @classmethod
    def from_file(cls, path: str, lowercase: Optional[bool] = None) -> "Tokenizer":
        """Opens a tokenizer.json, a SentencePiece .model, or a vocab.txt
        (``lowercase`` overrides tokenizer_config.json's ``do_lower_case``). Raises enc.Error
        ("io" or "format", naming the file and what is wrong)."""
        lib = _library()
        handle = ctypes.c_void_p()
        raw = os.fsencode(path)
        if lowercase is None:
            code = lib.enc_tokenizer_open(raw, ctypes.byref(handle))
        else:
            code = lib.enc_tokenizer_open_vocab(raw, 1 if lowercase else 0,
                                                ctypes.byref(handle))
        _raise(lib, code)
        return cls(handle.value)

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "tokenizer.json") -> "Tokenizer":
        """Opens a tokenizer from the bytes of a file; ``name`` (a file name
        such as "tokenizer.json", "spiece.model" or "vocab.txt") says its
        format by its ending and names it in errors; a vocab.txt is
        lowercased unless its name ends in ".cased.txt". Raises enc.Error
        ("format", naming what is wrong)."""
        lib = _library()
        if not isinstance(data, (bytes, bytearray)):
            raise Error("input", "from_bytes: expected bytes, got %s"
                        % type(data).__name__)
        handle = ctypes.c_void_p()
        code = lib.enc_tokenizer_open_memory(bytes(data), len(data),
                                             name.encode(), ctypes.byref(handle))
        _raise(lib, code)
        return cls(handle.value)

    @property
    def truncation_length(self) -> int:
        """The max_length it truncates to, 0 when it does not truncate."""
        return int(self._lib.enc_tokenizer_truncation_length(self._handle))

    def __del__(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.enc_tokenizer_free(handle)

    def enable_truncation(self, max_length: int,
                          strategy: str = "longest_first") -> None:
        """Truncates encodings to max_length tokens, special tokens
        included; ``strategy``: longest_first, only_first, only_second."""
        if strategy not in _TRUNCATIONS:
            raise Error("input", "enable_truncation: strategy %r is not one of "
                        "%s" % (strategy, ", ".join(_TRUNCATIONS)))
        _raise(self._lib, self._lib.enc_tokenizer_set_truncation(
            self._handle, int(max_length), _TRUNCATIONS[strategy]))

    def no_truncation(self) -> None:
        _raise(self._lib, self._lib.enc_tokenizer_set_truncation(
            self._handle, 0, 0))

    def encode(self, sequence: str, pair: Optional[str] = None,
               add_special_tokens: bool = True) -> Encoding:
        """Encodes one text (and its pair). Raises enc.Error("input") for
        text UTF-8 cannot hold (a lone surrogate), naming the byte offset."""
        lib = self._lib
        a = _utf8(sequence, "encode: sequence")
        b = _utf8(pair, "encode: pair") if pair is not None else None
        out = ctypes.c_void_p()
        code = lib.enc_tokenizer_encode(
            self._handle, a, len(a), b, len(b) if b is not None else 0,
            1 if add_special_tokens else 0, ctypes.byref(out))
        _raise(lib, code)
        try:
            e = out.value
            n = lib.enc_encoding_length(e)
            ids = lib.enc_encoding_ids(e)[:n]
            seq = lib.enc_encoding_sequence_ids(e)[:n]
            raw = lib.enc_encoding_offsets(e)[:2 * n]
            byte_pairs = [(raw[2 * k], raw[2 * k + 1]) for k in range(n)]
            index = (_char_index(a), _char_index(b) if b is not None else [])
            offsets: List[Tuple[int, int]] = [
                (index[s][bb], index[s][be]) if s >= 0 else (0, 0)
                for s, (bb, be) in zip(seq, byte_pairs)]
            return Encoding(
                ids, lib.enc_encoding_type_ids(e)[:n],
                [ctypes.string_at(lib.enc_encoding_token(e, k),
                                  lib.enc_encoding_token_length(e, k))
                 .decode("utf-8", "replace") for k in range(n)],
                offsets, lib.enc_encoding_attention_mask(e)[:n],
                [s if s >= 0 else None for s in seq])
        finally:
            lib.enc_encoding_free(out)

    def encode_batch(self, inputs: Sequence[Union[str, Tuple[str, str]]],
                     add_special_tokens: bool = True) -> List[Encoding]:
        """Encodes each text, or (text, pair) tuple."""
        out = []
        for x in inputs:
            if isinstance(x, (tuple, list)):
                if len(x) != 2:
                    raise Error("input", "encode_batch: a pair must be "
                                "(text, pair), got %d items" % len(x))
                out.append(self.encode(x[0], x[1], add_special_tokens))
            else:
                out.append(self.encode(x, None, add_special_tokens))
        return out

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """The text of ``ids`` as the file's decoder joins them."""
        lib = self._lib
        arr = (ctypes.c_int32 * len(ids))(*[int(i) for i in ids])
        needed = ctypes.c_size_t(0)
        skip = 1 if skip_special_tokens else 0
        code = lib.enc_tokenizer_decode(self._handle, arr, len(ids), skip,
                                        None, 0, ctypes.byref(needed))
        if code != 0 and needed.value == 0:
            _raise(lib, code)
        buf = ctypes.create_string_buffer(needed.value)
        _raise(lib, lib.enc_tokenizer_decode(self._handle, arr, len(ids), skip,
                                             buf, needed.value,
                                             ctypes.byref(needed)))
        return buf.raw[:needed.value - 1].decode("utf-8", "replace")

    def token_to_id(self, token: str) -> Optional[int]:
        raw = token.encode("utf-8", "surrogatepass")
        i = self._lib.enc_tokenizer_token_to_id(self._handle, raw, len(raw))
        return None if i < 0 else i

    def id_to_token(self, id: int) -> Optional[str]:
        t = self._lib.enc_tokenizer_id_to_token(self._handle, int(id))
        return None if t is None else t.decode("utf-8")

    def get_vocab_size(self) -> int:
        return self._lib.enc_tokenizer_vocab_size(self._handle)
