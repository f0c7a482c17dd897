#!/usr/bin/env python3
"""enc.Tokenizer (python/enc/_tokenizer.py) beyond what compare.js checks
against Hugging Face (tokenizer.test runs the corpus through the package):

- errors are enc.Error with the runtime's status and message: a missing
  file (io), a broken one (format), a lone surrogate (input, naming the
  byte offset), a bad truncation strategy, a malformed pair;
- token_to_id, id_to_token, get_vocab_size, decode, encode_batch with pairs,
  special_tokens_mask, truncation on and off;
- 4 Python threads encode at once and each gets what a lone call gives;
- help(enc.Tokenizer) documents from_file and encode.

usage: test_tokenizer.py INPUTS_DIR WORKDIR  (PYTHONPATH naming python/,
ENC_TOKENIZER_LIBRARY the shared library)
"""
import contextlib
import io
import os
import sys
import threading

import enc
from enc_dev.checks import check, finish



def error_of(fn):
    try:
        fn()
    except enc.Error as e:
        return e
    return None


def main():
    inputs, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    bert = enc.Tokenizer.from_file(os.path.join(inputs, "bert-base-uncased",
                                                "tokenizer.json"))
    e = bert.encode("Hello, world!")
    check(e.ids == [101, 7592, 1010, 2088, 999, 102], "ids %s" % e.ids)
    check(e.tokens == ["[CLS]", "hello", ",", "world", "!", "[SEP]"],
          "tokens %s" % e.tokens)
    check(e.offsets == [(0, 0), (0, 5), (5, 6), (7, 12), (12, 13), (0, 0)],
          "offsets %s" % e.offsets)
    check(e.special_tokens_mask == [1, 0, 0, 0, 0, 1],
          "special_tokens_mask %s" % e.special_tokens_mask)
    check(e.sequence_ids == [None, 0, 0, 0, 0, None],
          "sequence_ids %s" % e.sequence_ids)
    # Offsets are code points of the str, not bytes.
    e = bert.encode("café über")
    check(e.offsets[1:3] == [(0, 4), (5, 9)], "code point offsets %s" % e.offsets)
    check(bert.decode(bert.encode("Hello, world!").ids) == "hello, world!",
          "decode")
    check(bert.token_to_id("hello") == 7592 and bert.token_to_id("qqqqx") is None,
          "token_to_id")
    check(bert.id_to_token(7592) == "hello" and bert.id_to_token(10 ** 7) is None,
          "id_to_token")
    check(bert.get_vocab_size() == 30522, "get_vocab_size %d" % bert.get_vocab_size())
    batch = bert.encode_batch(["a b", ("query", "passage text")])
    check([x.type_ids for x in batch] == [[0, 0, 0, 0], [0, 0, 0, 1, 1, 1]],
          "encode_batch with a pair: %s" % [x.type_ids for x in batch])
    bert.enable_truncation(4)
    check(len(bert.encode("one two three four five")) == 4, "truncation to 4")
    bert.no_truncation()
    check(len(bert.encode("one two three four five")) == 7, "no_truncation")

    err = error_of(lambda: bert.encode("ab\ud800cd"))
    check(err is not None and err.status == "input" and "byte 2" in str(err),
          "lone surrogate: %r" % (err,))
    err = error_of(lambda: enc.Tokenizer.from_file(os.path.join(work, "nope.json")))
    check(err is not None and err.status == "io" and "nope.json" in str(err),
          "missing file: %r" % (err,))
    broken = os.path.join(work, "broken.json")
    with open(broken, "w") as f:
        f.write('{"model": {"type": "BPE", "vocab": {"a": 0}, '
                '"merges": ["a b"]}}')
    err = error_of(lambda: enc.Tokenizer.from_file(broken))
    check(err is not None and err.status == "format" and
          'model.merges[0]: "b" is not in the vocabulary' in str(err),
          "broken file: %r" % (err,))
    err = error_of(lambda: bert.enable_truncation(8, "middle_out"))
    check(err is not None and err.status == "input", "bad strategy: %r" % (err,))
    err = error_of(lambda: bert.encode_batch([("a", "b", "c")]))
    check(err is not None and "pair" in str(err), "malformed pair: %r" % (err,))
    err = error_of(lambda: bert.encode(b"bytes"))
    check(err is not None and "expected str" in str(err), "bytes: %r" % (err,))
    err = error_of(lambda: bert.decode([10 ** 7]))
    check(err is not None and err.status == "input", "decode bad id: %r" % (err,))

    t5 = enc.Tokenizer.from_file(os.path.join(inputs, "t5-small", "tokenizer.json"))
    texts = ["sentence %d with naïve café, 中文 and ｆｕｌｌ width" % i
             for i in range(60)]
    want = [t5.encode(t).ids for t in texts]
    bad = []

    def worker():
        for _ in range(3):
            bad.extend(i for i, t in enumerate(texts) if t5.encode(t).ids != want[i])

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(not bad, "4 threads agree with lone calls (%d differ)" % len(bad))

    # A SentencePiece .model, trained here, against python3-sentencepiece.
    import sentencepiece
    model = io.BytesIO()
    lines = ["the cat sat on the mat", "a dog ran in the park",
             "naïve café résumé", "hello world, hello again"] * 20
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=model, vocab_size=60,
        hard_vocab_limit=False, minloglevel=2, num_threads=1)
    path = os.path.join(work, "small.model")
    with open(path, "wb") as f:
        f.write(model.getvalue())
    sp = sentencepiece.SentencePieceProcessor(model_file=path)
    spm_tok = enc.Tokenizer.from_file(path)
    texts = ["the cat  ran in the café", "  hello wörld ", "", "xyz ÿ"]
    got = [spm_tok.encode(t).ids for t in texts]
    want = [sp.encode(t) for t in texts]
    check(got == want, ".model ids as sentencepiece %s" % got)
    check([spm_tok.decode(i) for i in got] == [sp.decode(i) for i in want],
          ".model decode as sentencepiece")

    doc = io.StringIO()
    with contextlib.redirect_stdout(doc):
        help(enc.Tokenizer)
    check("from_file" in doc.getvalue() and "Hugging Face" in doc.getvalue(),
          "help(enc.Tokenizer)")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
