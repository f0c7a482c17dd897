"""enc.Model: one encoder of a library, loaded with its weights."""
import ctypes
import os
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike

from ._library import HEADS, POOLINGS, SCORES, EncInput, Error, Library, open_library

__all__ = ["Model", "load"]

_I32 = np.dtype(np.int32)
_F32 = np.dtype(np.float32)
_I32_MIN, _I32_MAX = -2**31, 2**31 - 1


def _bad(message: str) -> Error:
    return Error("input", "bad input: " + message)


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _array(name: str, value) -> np.ndarray:
    """`value` as a numpy array, without converting its values yet."""
    if isinstance(value, np.ndarray):
        return value
    try:
        a = np.asarray(value)
    except (ValueError, TypeError) as e:
        raise _bad("%s cannot be read as an array: %s" % (name, e)) from None
    if a.dtype == object:
        raise _bad("%s is not a rectangular array of numbers" % name)
    return a


def _as_int32(name: str, a: np.ndarray, where) -> np.ndarray:
    """Integer ids or lengths as C-contiguous int32; any other integer width
    is range-checked first (values outside int32 are reported like the
    runtime reports an out-of-range value), anything else refused."""
    if a.dtype == _I32 and a.flags.c_contiguous and a.flags.aligned:
        return a
    kind = a.dtype.kind
    if kind not in "iu":
        what = {"f": "floating point", "c": "complex", "b": "bool"}.get(kind, str(a.dtype))
        raise _bad("%s has dtype %s (%s); it must hold integers" % (name, a.dtype, what))
    if a.size and a.dtype.itemsize >= 4 and a.dtype != _I32:
        low, high = a.min(), a.max()
        if low < _I32_MIN or high > _I32_MAX:
            flat = np.flatnonzero((a < _I32_MIN) | (a > _I32_MAX))[0]
            raise _bad(where(np.unravel_index(flat, a.shape), int(a.reshape(-1)[flat])))
    return np.require(a, _I32, ["C_CONTIGUOUS", "ALIGNED"])


class Model:
    """An encoder compiled by encc, with its weights loaded and packed.

    Create one with :func:`enc.load`. Compile-time facts (docs/language.md):

    ``name``, ``d_model``, ``heads``, ``head_dim``, ``d_ff``, ``blocks``,
    ``max_len`` (the longest sequence), ``vocab`` (0: the input is float
    embeddings), ``type_vocab`` (0: no token types), ``pooling``
    (``"none"``, ``"cls"``, ``"mean"``, ``"max"`` or ``"last"``),
    ``normalize``, ``out_dim`` (floats per output row: ``d_model``, the
    ``output_dim`` the pooled vector is cut to, a classifier's labels, or
    the vocabulary of an mlm or splade head)
    and ``head`` (``"none"``, ``"classifier"``: see :meth:`predict` and
    :meth:`rerank`; ``"colbert"``: see :meth:`embed_multi`; ``"mlm"``:
    logits per token, from :meth:`forward` or :meth:`embed_multi`;
    ``"splade"``: see :meth:`embed_sparse`; ``"dense"``: the pooled vector
    projected, as sentence-transformers' Dense module, for :meth:`encode`).

    :meth:`forward` may run from several Python threads at once on one model
    (it releases the GIL); :meth:`close` must not overlap it. A model is
    also a context manager that closes it.
    """

    name: str
    d_model: int
    heads: int
    head_dim: int
    d_ff: int
    blocks: int
    max_len: int
    vocab: int
    type_vocab: int
    pooling: str
    normalize: bool
    out_dim: int
    head: str

    def __init__(self, library: Library, encoder: str,
                 weights: Union[str, "os.PathLike[str]"]) -> None:
        info = library.encoders[encoder]
        self._library = library
        self.name = encoder
        for fact in ("d_model", "heads", "head_dim", "d_ff", "blocks", "max_len",
                     "vocab", "type_vocab", "out_dim"):
            setattr(self, fact, int(getattr(info, fact)))
        self.pooling = POOLINGS[info.pooling] if 0 <= info.pooling < len(POOLINGS) else "?"
        self.normalize = bool(info.normalize)
        self.head = HEADS[info.head] if 0 <= info.head < len(HEADS) else "?"
        # A classifier's rows: "none" (logits), "sigmoid" or "softmax".
        self.scores = SCORES[info.scores] if 0 <= info.scores < len(SCORES) else "?"
        # Calls go straight through these (the GIL is released during each).
        self._forward_fn = info.forward
        self._forward_attention_fn = info.forward_attention
        self._free_fn = info.free
        self._handle: Optional[int] = None
        handle = ctypes.c_void_p()
        status = info.load(os.fsencode(weights), ctypes.addressof(handle))
        if status != 0:
            raise library.error(status)
        self._handle = handle.value

    # -- running ------------------------------------------------------------

    def forward(self, x: ArrayLike, lengths: Optional[ArrayLike] = None,
                token_types: Optional[ArrayLike] = None, attention: bool = False
                ) -> Union[np.ndarray, Tuple[np.ndarray, np.ndarray]]:
        """Runs the encoder on a batch.

        x: token ids ``[batch, seq_len]`` (integers; any width, range-checked)
           when ``vocab > 0``, else embeddings ``[batch, seq_len, d_model]``
           (floating point; float64 is rounded to float32). Anything numpy
           can convert; a C-contiguous int32 / float32 array is used in place.
        lengths: ``[batch]`` valid lengths in ``0..seq_len`` (rows past them
           are padding), or None when every sequence is full.
        token_types: ``[batch, seq_len]`` segment ids, or None for type 0.
        attention: also return the attention probabilities of every block,
           ``[blocks, batch, heads, seq_len, seq_len]`` float32 (zero on
           padded rows and columns).

        Returns a float32 array ``[batch, seq_len, out_dim]`` (pooling none;
        rows past ``lengths[b]`` are zero; ``out_dim`` is d_model, or a
        ColBERT head's dim) or ``[batch, out_dim]`` (the other poolings); with ``attention=True`` the pair ``(output, probs)``.
        Raises :class:`enc.Error` with status ``"input"`` for bad input,
        naming the argument, the position and the value.
        """
        if self._handle is None:
            raise Error("input", "%s: the model is closed" % self.name)
        if self.vocab > 0:
            x = _array("tokens", x)
            if x.ndim != 2:
                raise _bad("tokens has shape %s; expected token ids [batch, seq_len]"
                           % (x.shape,))
            x = _as_int32("tokens", x, lambda pos, v: (
                "tokens at batch row %d, position %d is %d, outside the "
                "vocabulary 0..%d" % (pos[0], pos[1], v, self.vocab - 1)))
        else:
            x = _array("embeddings", x)
            if x.ndim != 3 or x.shape[2] != self.d_model:
                raise _bad("embeddings has shape %s; expected [batch, seq_len, %d]"
                           % (x.shape, self.d_model))
            if not (x.dtype == _F32 and x.flags.c_contiguous and x.flags.aligned):
                if x.dtype.kind != "f":
                    raise _bad("embeddings has dtype %s; it must be floating point"
                               % x.dtype)
                x = np.require(x, _F32, ["C_CONTIGUOUS", "ALIGNED"])
        batch, seq_len = x.shape[0], x.shape[1]
        if batch > _I32_MAX or seq_len > _I32_MAX:
            raise _bad("shape %s is too large" % (x.shape,))
        inp = EncInput(batch, seq_len)
        if self.vocab > 0:
            inp.tokens = _address(x)
        else:
            inp.embeddings = _address(x)
        if lengths is not None:
            lengths = _array("lengths", lengths)
            if lengths.shape != (batch,):
                raise _bad("lengths has shape %s; expected (%d,), one per batch row"
                           % (lengths.shape, batch))
            lengths = _as_int32("lengths", lengths, lambda pos, v: (
                "lengths[%d] is %d, outside 0..%d (seq_len)" % (pos[0], v, seq_len)))
            inp.lengths = _address(lengths)
        if token_types is not None:
            token_types = _array("token_types", token_types)
            if token_types.shape != (batch, seq_len):
                raise _bad("token_types has shape %s; expected (%d, %d), like the "
                           "tokens" % (token_types.shape, batch, seq_len))
            token_types = _as_int32("token_types", token_types, lambda pos, v: (
                "token_types at batch row %d, position %d is %d, outside the "
                "token types 0..%d" % (pos[0], pos[1], v, max(self.type_vocab - 1, 0))))
            inp.token_types = _address(token_types)

        out = np.empty((batch, self.out_dim) if self.pooling != "none"
                       else (batch, seq_len, self.out_dim), _F32)
        if not attention:
            status = self._forward_fn(self._handle, ctypes.addressof(inp), _address(out))
            if status != 0:
                raise self._library.error(status)
            return out
        probs = np.empty((self.blocks, batch, self.heads, seq_len, seq_len), _F32)
        status = self._forward_attention_fn(self._handle, ctypes.addressof(inp),
                                            _address(out), _address(probs))
        if status != 0:
            raise self._library.error(status)
        return out, probs

    __call__ = forward

    def encode(self, sentences: Union[str, Sequence[str]], tokenizer=None,
               batch_size: int = 32, normalize_embeddings: bool = False
               ) -> np.ndarray:
        """Texts to pooled embeddings, as sentence-transformers'
        ``SentenceTransformer.encode`` does: ``tokenizer`` (an
        :class:`enc.Tokenizer`; by default :attr:`tokenizer`, the one
        compiled into the model) encodes each text with its special tokens,
        the texts run in batches of ``batch_size`` of similar length (no
        compute on padding), and the result is float32 ``[n, out_dim]`` in
        the order given (``[out_dim]`` for one str). ``normalize_embeddings``
        scales each row to unit L2 norm.

        The model must pool (``pooling`` other than none). A text longer than
        ``max_len`` tokens raises :class:`enc.Error` ("input") naming it:
        call ``tokenizer.enable_truncation(model.max_len)`` to cut instead.
        """
        if self.pooling == "none":
            raise _bad("encode needs a model that pools (pooling = mean, cls, "
                       "max or last); %s has pooling none: use forward"
                       % self.name)
        if self.vocab <= 0:
            raise _bad("encode needs a model of token ids; %s reads embeddings"
                       % self.name)
        single = isinstance(sentences, str)
        texts = [sentences] if single else list(sentences)
        out = self._run_texts(texts, tokenizer, batch_size, "sentence")
        if normalize_embeddings:
            norms = np.linalg.norm(out, axis=1, keepdims=True)
            out /= np.maximum(norms, np.float32(1e-12))
        return out[0] if single else out

    def embed(self, texts: Union[str, Sequence[str]], tokenizer=None,
              batch_size: int = 32) -> np.ndarray:
        """Texts to the model's pooled rows, as text-embeddings-inference's
        /embed returns them (normalised when the model's ``normalize``
        says so, a head's output when it has one): :meth:`encode` with the
        given tokenizer, or the one compiled into the model."""
        return self.encode(texts, tokenizer, batch_size)

    def predict(self, pairs: Sequence[Union[str, Tuple[str, str]]],
                tokenizer=None, batch_size: int = 32) -> np.ndarray:
        """What a classifier head (``head = classifier(...)``,
        docs/language.md#heads) gives for each ``(text, text_pair)`` (a
        cross-encoder's query and passage) or single text, as
        sentence-transformers' ``CrossEncoder.predict`` runs them: encoded
        together with the tokenizer's pair template, batched by length.
        Returns float32 ``[n, labels]``, or ``[n]`` when the head has one
        label: the logits, or the scores its ``scores`` setting asks for."""
        if self.head != "classifier":
            raise _bad("predict needs a classifier head; %s has none (its "
                       ".enc sets no head = classifier(...))" % self.name)
        out = self._run_texts(list(pairs), tokenizer, batch_size, "pair")
        return out[:, 0] if self.out_dim == 1 else out

    def rerank(self, query: str, documents: Sequence[str],
               top_k: Optional[int] = None, tokenizer=None,
               batch_size: int = 32) -> List[Tuple[int, float]]:
        """The documents ordered by the one-label classifier's score of
        (query, document), highest first, as text-embeddings-inference's
        /rerank orders them: ``[(index, score), ...]``, the first ``top_k``
        (all when None); equal scores keep the documents' order."""
        if self.head != "classifier" or self.out_dim != 1:
            raise _bad("rerank needs a classifier head with one label (a "
                       "cross-encoder); %s has %s" % (
                           self.name, "none" if self.head != "classifier"
                           else "%d labels" % self.out_dim))
        scores = self.predict([(query, d) for d in documents], tokenizer,
                              batch_size)
        order = sorted(range(len(documents)), key=lambda i: -float(scores[i]))
        if top_k is not None:
            order = order[:max(0, int(top_k))]
        return [(i, float(scores[i])) for i in order]

    def embed_multi(self, texts: Union[str, Sequence[str]], tokenizer=None,
                    batch_size: int = 32) -> List[np.ndarray]:
        """One float32 ``[tokens, out_dim]`` array per text, special tokens
        included: every token's vector of a model without pooling, as a
        ColBERT head (``head = colbert(dim = N)``) gives them, normalised.
        Batched by length as :meth:`encode`; ColBERT's query and document
        markers and query padding are the caller's text to add."""
        if self.pooling != "none":
            raise _bad("embed_multi needs a vector per token (pooling none); "
                       "%s pools (%s): use encode" % (self.name, self.pooling))
        single = isinstance(texts, str)
        items = [texts] if single else list(texts)
        rows = self._run_texts(items, tokenizer, batch_size, "text", per_token=True)
        return rows[0] if single else rows

    def embed_sparse(self, texts: Union[str, Sequence[str]], tokenizer=None,
                     batch_size: int = 32, top_k: Optional[int] = None,
                     threshold: float = 0.0) -> Union[Dict[int, float],
                                                      List[Dict[int, float]]]:
        """SPLADE vectors (``head = splade``, docs/language.md#heads) in their
        sparse form, as text-embeddings-inference's /embed_sparse gives them:
        one ``{token_id: weight}`` per text (one dict for one str) holding
        the weights above ``threshold``, heaviest first, at most ``top_k``
        of them when given. Batched by length as :meth:`encode`."""
        if self.head != "splade":
            raise _bad("embed_sparse needs a splade head; %s has %s" % (
                self.name, "none" if self.head == "none" else "a %s head" % self.head))
        if top_k is not None and int(top_k) < 0:
            raise _bad("top_k is %r; it must be at least 0" % (top_k,))
        single = isinstance(texts, str)
        items = [texts] if single else list(texts)
        dense = self._run_texts(items, tokenizer, batch_size, "text")
        out = []
        for row in dense:
            keep = np.flatnonzero(row > np.float32(threshold))
            # Heaviest first; equal weights in id order (a stable sort).
            keep = keep[np.argsort(-row[keep], kind="stable")]
            if top_k is not None:
                keep = keep[:int(top_k)]
            out.append({int(i): float(row[i]) for i in keep})
        return out[0] if single else out

    def _run_texts(self, inputs: list, tokenizer, batch_size: int,
                   what: str, per_token: bool = False):
        """Encodes `inputs` (texts or pairs) and runs them in batches of
        similar length: [n, out_dim] in the order given, or with per_token
        a list of [tokens, out_dim] arrays."""
        if self.vocab <= 0:
            raise _bad("%s reads embeddings, not token ids: use forward"
                       % self.name)
        if tokenizer is None:
            tokenizer = self.tokenizer
        if int(batch_size) < 1:
            raise _bad("batch_size is %r; it must be at least 1" % (batch_size,))
        encodings = tokenizer.encode_batch(inputs)
        # The tokens each text has, without the padding a tokenizer file may
        # ask for (right padding: the attention mask's ones come first).
        valid = [sum(e.attention_mask) for e in encodings]
        for i, n in enumerate(valid):
            if n > self.max_len:
                raise _bad("%s %d has %d tokens, more than max_len %d "
                           "(tokenizer.enable_truncation(%d) cuts it)"
                           % (what, i, n, self.max_len, self.max_len))
        out = ([None] * len(inputs) if per_token
               else np.empty((len(inputs), self.out_dim), _F32))
        # Longest first, so that each batch pads little.
        order = sorted(range(len(inputs)), key=lambda i: -valid[i])
        for start in range(0, len(order), int(batch_size)):
            rows = order[start:start + int(batch_size)]
            seq = max(1, max(valid[i] for i in rows))
            ids = np.zeros((len(rows), seq), np.int32)
            types = np.zeros((len(rows), seq), np.int32)
            lengths = np.zeros(len(rows), np.int32)
            for r, i in enumerate(rows):
                e, n = encodings[i], valid[i]
                ids[r, :n] = e.ids[:n]
                types[r, :n] = e.type_ids[:n]
                lengths[r] = n
            y = self.forward(ids, lengths=lengths,
                             token_types=types if self.type_vocab > 0 else None)
            if per_token:
                for r, i in enumerate(rows):
                    out[i] = y[r, :valid[i]].copy()
            else:
                out[rows] = y
        return out

    @property
    def tokenizer(self):
        """The tokenizer compiled into the model (``tokenizer = "..."`` in
        its .enc), as an :class:`enc.Tokenizer` opened from the object's
        copy of the file, truncating to ``max_len`` when the file sets no
        truncation (as ``NAME_embed_text`` does). One per model; changing it
        (``enable_truncation``) changes what :meth:`encode` does, not
        :meth:`embed_text`. A model compiled without one raises
        :class:`enc.Error` ("input")."""
        if getattr(self, "_tokenizer", None) is not None:
            return self._tokenizer
        from ._tokenizer import Tokenizer  # the tokenizer library, on demand
        fn = self._library.function(self.name + "_tokenizer_file")
        if fn is None:
            raise _bad("%s has no compiled-in tokenizer (its .enc sets no "
                       "tokenizer): open one with enc.Tokenizer.from_file"
                       % self.name)
        data, size, name = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_char_p()
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_void_p] * 3
        status = fn(ctypes.addressof(data), ctypes.addressof(size),
                    ctypes.addressof(name))
        if status != 0:
            raise self._library.error(status)
        tok = Tokenizer.from_bytes(ctypes.string_at(data.value, size.value),
                                   name.value.decode("utf-8", "replace"))
        if tok.truncation_length == 0:
            tok.enable_truncation(self.max_len)
        self._tokenizer = tok
        return tok

    def embed_text(self, sentences: Union[str, Sequence[str]]) -> np.ndarray:
        """Texts to pooled rows through the tokenizer compiled into the
        model (``tokenizer = "..."`` in its .enc; docs/tokenizers.md):
        float32 ``[n, out_dim]`` in the order given (``[out_dim]`` for one
        str), computed by the library's ``NAME_embed_text`` with the GIL
        released. A model compiled without a tokenizer, or without pooling,
        raises :class:`enc.Error` ("input")."""
        fn = self._library.function(self.name + "_embed_text")
        if fn is None:
            raise _bad("%s has no compiled-in tokenizer with pooling (its .enc "
                       "sets no tokenizer, or pooling none): use encode with "
                       "an enc.Tokenizer" % self.name)
        if self._handle is None:
            raise Error("input", "%s: the model is closed" % self.name)
        single = isinstance(sentences, str)
        texts = [sentences] if single else list(sentences)
        raw = []
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise _bad("sentence %d is %s, not str" % (i, type(t).__name__))
            raw.append(t.encode("utf-8", "surrogatepass"))
        out = np.empty((len(texts), self.out_dim), _F32)
        if texts:
            pointers = (ctypes.c_char_p * len(raw))(*raw)
            lengths = (ctypes.c_size_t * len(raw))(*[len(b) for b in raw])
            fn.restype = ctypes.c_int
            fn.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p,
                           ctypes.c_void_p, ctypes.c_void_p]
            status = fn(self._handle, len(raw), ctypes.addressof(pointers),
                        ctypes.addressof(lengths), _address(out))
            if status != 0:
                raise self._library.error(status)
        return out[0] if single else out

    # -- lifetime -----------------------------------------------------------

    def close(self) -> None:
        """Frees the weights; later forward calls raise enc.Error."""
        handle, self._handle = self._handle, None
        if handle is not None:
            self._free_fn(handle)

    def __enter__(self) -> "Model":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: nothing left to free with
            pass

    def __repr__(self) -> str:
        return ("<enc.Model %s: d_model %d, heads %d, blocks %d, max_len %d, "
                "vocab %d, pooling %s%s>" % (
                    self.name, self.d_model, self.heads, self.blocks, self.max_len,
                    self.vocab, self.pooling, "" if self._handle else ", closed"))


def load(library: Union[str, "os.PathLike[str]"],
         weights: Union[str, "os.PathLike[str]"],
         encoder: Optional[str] = None) -> Model:
    """Loads encoder `encoder` of the shared library `library` (built by
    ``encc --emit=shared``) with the safetensors file `weights`, or a model
    directory as Hugging Face and sentence-transformers save one (its
    model.safetensors and its Dense modules' files: docs/weights.md), or a
    packed-weights file written by :func:`pack` or ``encc pack``, which is
    mapped and used in place.

    `encoder` may be omitted when the library holds one encoder. The library
    is loaded once per process; each call loads the weights anew. Raises
    :class:`enc.Error`: status ``"io"`` (a file cannot be read),
    ``"format"`` (not an encc library, or not safetensors), ``"weights"`` (a
    tensor is missing or has the wrong shape), ``"input"`` (no such encoder).
    """
    lib = open_library(library)
    return Model(lib, _encoder_of(lib, encoder), weights)


def _encoder_of(lib: Library, encoder: Optional[str]) -> str:
    names = lib.names()
    if encoder is None:
        if len(names) != 1:
            raise Error("input", "%s holds %d encoders (%s): name one with encoder="
                        % (lib.path, len(names), ", ".join(names)))
        return names[0]
    if encoder not in lib.encoders:
        raise Error("input", "%s has no encoder named '%s'; it holds %s"
                    % (lib.path, encoder, ", ".join(names)))
    return encoder


def pack(library: Union[str, "os.PathLike[str]"],
         weights: Union[str, "os.PathLike[str]"],
         packed: Union[str, "os.PathLike[str]"],
         encoder: Optional[str] = None) -> None:
    """Loads `weights` (a safetensors file or model directory) for encoder
    `encoder` of `library`, packs them for this machine's CPU and writes them
    to `packed`, a packed-weights file (docs/weights.md#packed-weights-files)
    that :func:`enc.load` then maps in place: no packing, and one copy in
    the page cache for every process that loads it. The file is written
    under a temporary name and renamed. Raises :class:`enc.Error` as
    :func:`load` does, and ``"io"`` when `packed` cannot be written.
    """
    lib = open_library(library)
    info = lib.encoders[_encoder_of(lib, encoder)]
    status = info.pack(os.fsencode(weights), os.fsencode(packed))
    if status != 0:
        raise lib.error(status)
