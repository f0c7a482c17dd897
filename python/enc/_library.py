"""A shared library built by ``encc --emit=shared``, through ctypes.

The library describes its encoders itself (``enc_library_encoders``, see
runtime/include/enc/library.h): this module mirrors that header's structs and
status codes, loads a library once per path, and turns a failed call into
:class:`Error`.
"""
import ctypes
import os
import threading
from typing import Dict, List, Optional

__all__ = ["Error", "Library", "open_library", "set_num_threads"]

ABI_VERSION = 4  # ENC_LIBRARY_ABI_VERSION of enc/library.h

# enc_status, as enc_status_name() spells it without "ENC_ERR_", lowercased.
STATUSES = ("io", "format", "weights", "input", "nomem")


class Error(RuntimeError):
    """A failed encc call.

    ``status`` is one of ``"io"``, ``"format"``, ``"weights"``, ``"input"``,
    ``"nomem"`` (the runtime's enc_status) and the message is the runtime's
    ``enc_last_error()``, or for an argument the binding refuses before
    calling the runtime, a message in the same style.
    """

    def __init__(self, status: str, message: str) -> None:
        if status not in STATUSES:
            raise ValueError("enc.Error: unknown status %r" % (status,))
        super().__init__(message)
        self.status = status

    def __repr__(self) -> str:
        return "enc.Error(%r, %r)" % (self.status, str(self))


class EncInput(ctypes.Structure):
    """enc_input of enc/runtime.h."""
    _fields_ = [("batch", ctypes.c_int32), ("seq_len", ctypes.c_int32),
                ("embeddings", ctypes.c_void_p), ("tokens", ctypes.c_void_p),
                ("token_types", ctypes.c_void_p), ("lengths", ctypes.c_void_p)]


# The entry points' types (enc_model_*_fn of enc/runtime.h), with every
# pointer as c_void_p so that calls take plain addresses.
LOAD_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
FORWARD_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                              ctypes.c_void_p)
FREE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
WORKSPACE_BYTES_FN = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int32,
                                      ctypes.c_int32)
FORWARD_ATTENTION_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                                        ctypes.c_void_p, ctypes.c_void_p,
                                        ctypes.c_void_p)
PACK_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p)


class EncoderInfo(ctypes.Structure):
    """enc_encoder_info of enc/library.h (ENC_LIBRARY_ABI_VERSION 4)."""
    _fields_ = [("abi_version", ctypes.c_int32), ("name", ctypes.c_char_p),
                ("d_model", ctypes.c_int32), ("heads", ctypes.c_int32),
                ("head_dim", ctypes.c_int32), ("d_ff", ctypes.c_int32),
                ("blocks", ctypes.c_int32), ("max_len", ctypes.c_int32),
                ("vocab", ctypes.c_int32), ("type_vocab", ctypes.c_int32),
                ("pooling", ctypes.c_int32), ("normalize", ctypes.c_int32),
                ("out_dim", ctypes.c_int32), ("head", ctypes.c_int32),
                ("scores", ctypes.c_int32),
                ("load", LOAD_FN), ("forward", FORWARD_FN),
                ("free", FREE_FN), ("workspace_bytes", WORKSPACE_BYTES_FN),
                ("forward_attention", FORWARD_ATTENTION_FN),
                ("pack", PACK_FN)]


POOLINGS = ("none", "cls", "mean", "max", "last")  # enc_pool_mode
HEADS = ("none", "classifier", "colbert", "mlm", "splade", "dense")  # enc_head_kind
SCORES = ("none", "sigmoid", "softmax")  # enc_scores


class Library:
    """One loaded shared library and the encoders it lists."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            self._dll = ctypes.CDLL(path)  # RTLD_LOCAL: libraries stay apart
        except OSError as e:
            exists = os.path.exists(path)
            raise Error("io" if not exists else "format",
                        "%s: cannot load the library: %s" % (path, e)) from None
        dll = self._dll
        try:
            encoders = dll.enc_library_encoders
        except AttributeError:
            raise Error("format", "%s is not a library built by encc --emit=shared "
                        "(it has no enc_library_encoders)" % path) from None
        encoders.restype = ctypes.c_void_p
        encoders.argtypes = [ctypes.POINTER(ctypes.c_int32)]
        dll.enc_last_error.restype = ctypes.c_char_p
        dll.enc_last_error.argtypes = []
        dll.enc_status_name.restype = ctypes.c_char_p
        dll.enc_status_name.argtypes = [ctypes.c_int]
        dll.enc_set_num_threads.restype = ctypes.c_int
        dll.enc_set_num_threads.argtypes = [ctypes.c_int]

        count = ctypes.c_int32(0)
        table = encoders(ctypes.byref(count))
        if not table or count.value < 1:
            raise Error("format", "%s lists no encoders" % path)
        # Read the version before trusting the rest of the layout.
        version = ctypes.c_int32.from_address(table).value
        if version != ABI_VERSION:
            raise Error("format", "%s describes its encoders in layout version %d; "
                        "this enc package reads version %d (rebuild the library "
                        "with the matching encc)" % (path, version, ABI_VERSION))
        infos = (EncoderInfo * count.value).from_address(table)
        self.encoders: Dict[str, EncoderInfo] = {}
        for info in infos:
            self.encoders[info.name.decode()] = info

    def function(self, name: str):
        """The library's exported C function `name`, or None."""
        return getattr(self._dll, name, None)

    def names(self) -> List[str]:
        return list(self.encoders)

    def status(self, code: int) -> str:
        """The binding's name of an enc_status returned by this library."""
        name = self._dll.enc_status_name(code).decode()
        short = name[len("ENC_ERR_"):].lower() if name.startswith("ENC_ERR_") else ""
        if short not in STATUSES:
            return "input"  # not a status this binding knows: the call's fault
        return short

    def error(self, code: int) -> Error:
        """Error for the failed call on this thread that returned `code`."""
        return Error(self.status(code), self._dll.enc_last_error().decode(
            "utf-8", "replace"))

    def set_num_threads(self, n: int) -> int:
        used = self._dll.enc_set_num_threads(n)
        if used < 0:
            raise Error("input", self._dll.enc_last_error().decode("utf-8", "replace"))
        return used


_libraries: Dict[str, Library] = {}
_lock = threading.Lock()
_num_threads: Optional[int] = None


def open_library(path) -> Library:
    """The Library at `path`, loaded once per process (per real path). A name
    that is no file, such as "libmodel.so" outside the current directory,
    is searched for as dlopen does (LD_LIBRARY_PATH, the system's paths)."""
    path = os.fsdecode(path)
    real = os.path.realpath(path) if os.sep in path or os.path.exists(path) else path
    with _lock:
        lib = _libraries.get(real)
        if lib is None:
            lib = Library(real)
            if _num_threads is not None:
                lib.set_num_threads(_num_threads)
            _libraries[real] = lib
        return lib


def set_num_threads(n: int) -> int:
    """Sets the size of the thread pool of every loaded library, and of those
    loaded later: n > 0 threads, or 0 for one per core. Returns the number of
    threads in use (of the last library loaded, if any; else n). Takes
    effect once no forward call is running."""
    global _num_threads
    n = int(n)
    if n < 0:
        raise Error("input", "enc.set_num_threads: n is %d, must be >= 0" % n)
    with _lock:
        used = n
        for lib in _libraries.values():
            used = lib.set_num_threads(n)
        _num_threads = n
    return used
