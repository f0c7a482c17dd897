"""Writes variants of published tokenizer.json files that exercise the
pieces those files leave at one setting, for tokenizer.test to hold against
Hugging Face `tokenizers`.

From a byte-level BPE (RoBERTa's), `make_variants.py bpe SRC OUT`:

  prefix.json      add_prefix_space on (pre-tokenizer and post-processor)
  notrim.json      trim_offsets off
  prefix_notrim.json  add_prefix_space on, trim_offsets off
  noregex.json     ByteLevel without GPT-2's split
  modernbert.json  ModernBERT's shape: NFC, [CLS] A [SEP] (B [SEP], type 1)
                   by TemplateProcessing, added tokens that lstrip, rstrip,
                   single_word and normalized=false
  nfkd.json        an NFKD normalizer
  sequence_post.json  a post_processor Sequence: ByteLevel's trimming, then
                   <s> A </s> (B </s>, type 1) by TemplateProcessing

From a WordPiece (bert-base-uncased's), `make_variants.py wordpiece SRC OUT`:

  nfkc_lower.json     NFKC then Lowercase instead of BertNormalizer
  nfd_replace.json    Strip, NFD, Replace "``" -> '"', Replace " {2,}" -> " "

From a Unigram (T5's), `make_variants.py unigram SRC OUT`:

  first.json       Metaspace prepend_scheme "first", no split
  never.json       prepend_scheme "never"
  bytes.json       byte_fallback with <0x00>..<0xFF> pieces, XLM-R's
                   <s> A </s> </s> B </s> (RobertaProcessing)
  nounk.json       no unk_id: a text that needs one is an error
  xlmr.json        XLM-R's shape: Metaspace alone (no WhitespaceSplit),
                   <s> A </s> </s> B </s> by TemplateProcessing
"""
import copy
import json
import os
import sys


def added(id_, content, special, **flags):
    token = {"id": id_, "content": content, "single_word": False,
             "lstrip": False, "rstrip": False, "normalized": not special,
             "special": special}
    token.update(flags)
    return token


def unigram_variants(base, write):
    def metaspace(j, scheme, split):
        for p in j["pre_tokenizer"]["pretokenizers"]:
            if p["type"] == "Metaspace":
                p.pop("add_prefix_space", None)
                p["prepend_scheme"], p["split"] = scheme, split
        j["decoder"].pop("add_prefix_space", None)
        j["decoder"]["prepend_scheme"], j["decoder"]["split"] = scheme, split

    j = copy.deepcopy(base)
    metaspace(j, "first", False)
    write("first.json", j)

    j = copy.deepcopy(base)
    metaspace(j, "never", True)
    write("never.json", j)

    j = copy.deepcopy(base)
    j["model"]["byte_fallback"] = True
    j["model"]["vocab"] += [["<0x%02X>" % b, -30.0] for b in range(256)]
    j["post_processor"] = {"type": "RobertaProcessing", "sep": ["</s>", 1],
                           "cls": ["<pad>", 0], "trim_offsets": False,
                           "add_prefix_space": False}
    write("bytes.json", j)

    j = copy.deepcopy(base)
    j["model"]["unk_id"] = None
    write("nounk.json", j)

    j = copy.deepcopy(base)
    j["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581",
                          "add_prefix_space": True}
    special = lambda t: {"SpecialToken": {"id": t, "type_id": 0}}
    seq = lambda s: {"Sequence": {"id": s, "type_id": 0}}
    j["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [special("<pad>"), seq("A"), special("</s>")],
        "pair": [special("<pad>"), seq("A"), special("</s>"), special("</s>"),
                 seq("B"), special("</s>")],
        "special_tokens": {
            "<pad>": {"id": "<pad>", "ids": [0], "tokens": ["<pad>"]},
            "</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}}
    write("xlmr.json", j)


def wordpiece_variants(base, write):
    j = copy.deepcopy(base)
    j["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "NFKC"}, {"type": "Lowercase"}]}
    write("nfkc_lower.json", j)

    j = copy.deepcopy(base)
    j["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "Strip", "strip_left": True, "strip_right": True},
        {"type": "NFD"},
        {"type": "Replace", "pattern": {"String": "``"}, "content": '"'},
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]}
    write("nfd_replace.json", j)


def main():
    kind, source, out = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    with open(source, encoding="utf-8") as f:
        base = json.load(f)

    def write(name, j):
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            json.dump(j, f, ensure_ascii=False)

    if kind == "unigram":
        unigram_variants(base, write)
        return
    if kind == "wordpiece":
        wordpiece_variants(base, write)
        return

    # (pre_tokenizer changes, post_processor changes) of each plain variant.
    plain = {
        "prefix.json": ({"add_prefix_space": True}, {"add_prefix_space": True}),
        "notrim.json": ({}, {"trim_offsets": False}),
        "prefix_notrim.json": ({"add_prefix_space": True},
                               {"add_prefix_space": True, "trim_offsets": False}),
        "noregex.json": ({"use_regex": False}, {}),
    }
    for name, (pre, post) in plain.items():
        j = copy.deepcopy(base)
        j["pre_tokenizer"].update(pre)
        j["post_processor"].update(post)
        write(name, j)

    j = copy.deepcopy(base)
    j["normalizer"] = {"type": "NFKD"}
    write("nfkd.json", j)

    j = copy.deepcopy(base)
    special = lambda t, type_id: {"SpecialToken": {"id": t, "type_id": type_id}}
    seq = lambda s, type_id: {"Sequence": {"id": s, "type_id": type_id}}
    j["post_processor"] = {"type": "Sequence", "processors": [
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
         "use_regex": True},
        {"type": "TemplateProcessing",
         "single": [special("<s>", 0), seq("A", 0), special("</s>", 0)],
         "pair": [special("<s>", 0), seq("A", 0), special("</s>", 0),
                  seq("B", 1), special("</s>", 1)],
         "special_tokens": {
             "<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]},
             "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}}}]}
    write("sequence_post.json", j)

    j = copy.deepcopy(base)
    j["normalizer"] = {"type": "NFC"}
    n = len(j["model"]["vocab"])
    j["added_tokens"] += [
        added(n, "[CLS]", True), added(n + 1, "[SEP]", True),
        added(n + 2, "[MASK]", True, lstrip=True),
        added(n + 3, "<|endoftext|>", False, rstrip=True, normalized=False),
        added(n + 4, "hello", False, single_word=True),
    ]
    cls = {"SpecialToken": {"id": "[CLS]", "type_id": 0}}
    sep = lambda t: {"SpecialToken": {"id": "[SEP]", "type_id": t}}
    seq = lambda s, t: {"Sequence": {"id": s, "type_id": t}}
    j["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [cls, seq("A", 0), sep(0)],
        "pair": [cls, seq("A", 0), sep(0), seq("B", 1), sep(1)],
        "special_tokens": {
            "[CLS]": {"id": "[CLS]", "ids": [n], "tokens": ["[CLS]"]},
            "[SEP]": {"id": "[SEP]", "ids": [n + 1], "tokens": ["[SEP]"]},
        },
    }
    write("modernbert.json", j)


if __name__ == "__main__":
    main()
