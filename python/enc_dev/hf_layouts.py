#!/usr/bin/env python3
"""Writes weights in the tensor names Hugging Face transformers uses for each
encoder family (docs/weights.md, checkpoint layouts), from weights in the
canonical names of reference.weight_shapes. A test oracle written from the
families' modeling code, independent of the runtime's own name tables:

  to_hf(layout, spec, weights, prefix="", gamma_beta=False, extra=True)
      -> OrderedDict of HF name -> array

layout is one of bert, roberta, distilbert, t5, modernbert, electra, mpnet,
nomic_bert. `prefix` is the family prefix of the ...ForMaskedLM checkpoints
("bert.", "roberta.", "distilbert.", "model.", "electra.", "mpnet.", and
"bert." for NomicBertForPreTraining); `gamma_beta` spells LayerNorm parameters as older
BERT checkpoints do; `extra` adds tensors a real checkpoint holds that the
encoder does not use (pooler, heads, decoder, position_ids buffers).
"""
import re
from collections import OrderedDict

import numpy as np

from enc_dev import reference as ref

LAYOUTS = ("bert", "roberta", "distilbert", "t5", "modernbert", "electra", "mpnet",
           "nomic_bert")


def _ln(hf_prefix, canon_prefix, w, out, gamma_beta):
    wname, bname = ("gamma", "beta") if gamma_beta else ("weight", "bias")
    out[hf_prefix + "." + wname] = w[canon_prefix + ".weight"]
    if canon_prefix + ".bias" in w:
        out[hf_prefix + "." + bname] = w[canon_prefix + ".bias"]


def _lin(hf_prefix, canon_prefix, w, out):
    out[hf_prefix + ".weight"] = w[canon_prefix + ".weight"]
    if canon_prefix + ".bias" in w:
        out[hf_prefix + ".bias"] = w[canon_prefix + ".bias"]


# A block's tensors, canonical name (after `blocks.N.`) -> the family's (after
# its layer prefix), in the order the family's checkpoints list them.
_BERT_BLOCK = (("attn.q", "attention.self.query"), ("attn.k", "attention.self.key"),
               ("attn.v", "attention.self.value"), ("attn.o", "attention.output.dense"),
               ("norm1", "attention.output.LayerNorm"), ("ffn.up", "intermediate.dense"),
               ("ffn.down", "output.dense"), ("norm2", "output.LayerNorm"))
_DISTILBERT_BLOCK = (("attn.q", "attention.q_lin"), ("attn.k", "attention.k_lin"),
                     ("attn.v", "attention.v_lin"), ("attn.o", "attention.out_lin"),
                     ("norm1", "sa_layer_norm"), ("ffn.up", "ffn.lin1"),
                     ("ffn.down", "ffn.lin2"), ("norm2", "output_layer_norm"))

# MPNetLayer: MPNetAttention (attn.q/k/v/o, LayerNorm), intermediate, output.
_MPNET_BLOCK = (("attn.q", "attention.attn.q"), ("attn.k", "attention.attn.k"),
                ("attn.v", "attention.attn.v"), ("attn.o", "attention.attn.o"),
                ("norm1", "attention.LayerNorm"), ("ffn.up", "intermediate.dense"),
                ("ffn.down", "output.dense"), ("norm2", "output.LayerNorm"))


def _blocks(spec, w, out, layer, names, gamma_beta):
    """Every block's tensors under `layer % n` by the `names` table."""
    for n in range(spec["blocks"]):
        L, c = layer % n, "blocks.%d." % n
        for canon, hf in names:
            if canon.startswith("norm"):
                _ln(L + hf, c + canon, w, out, gamma_beta)
            else:
                _lin(L + hf, c + canon, w, out)


def _bert(spec, w, p, gamma_beta, extra):
    out = OrderedDict()
    out[p + "embeddings.word_embeddings.weight"] = w["embed.tokens"]
    out[p + "embeddings.position_embeddings.weight"] = w["embed.positions"]
    if "embed.types" in w:
        out[p + "embeddings.token_type_embeddings.weight"] = w["embed.types"]
    _ln(p + "embeddings.LayerNorm", "embed.norm", w, out, gamma_beta)
    _blocks(spec, w, out, p + "encoder.layer.%d.", _BERT_BLOCK, gamma_beta)
    if spec["head"]["scheme"] != "none":  # the head's tensors, not extras
        return out
    if extra:
        d = spec["d_model"]
        out[p + "pooler.dense.weight"] = np.zeros((d, d))
        out[p + "pooler.dense.bias"] = np.zeros((d,))
    return out


def _unused_mlm_head(spec, out, dense, norm, decoder):
    # An MLM head's tensors, which a checkpoint holds beside the encoder and
    # the encoder never reads (zeros and ones: their values do not matter).
    d = spec["d_model"]
    out[dense + ".weight"] = np.zeros((d, d))
    out[norm + ".weight"] = np.ones((d,))
    out[decoder + ".bias"] = np.zeros((spec["vocab"],))


def _distilbert(spec, w, p, extra):
    out = OrderedDict()
    out[p + "embeddings.word_embeddings.weight"] = w["embed.tokens"]
    out[p + "embeddings.position_embeddings.weight"] = w["embed.positions"]
    _ln(p + "embeddings.LayerNorm", "embed.norm", w, out, False)
    _blocks(spec, w, out, p + "transformer.layer.%d.", _DISTILBERT_BLOCK, False)
    if spec["head"]["scheme"] != "none":
        return out
    if extra:
        _unused_mlm_head(spec, out, "vocab_transform", "vocab_layer_norm",
                         "vocab_projector")
    return out


def _mpnet(spec, w, p, gamma_beta, extra):
    # MPNetModel: MPNetEmbeddings (no token types), MPNetEncoder (its layers
    # and the relative_attention_bias they share), MPNetPooler.
    out = OrderedDict()
    out[p + "embeddings.word_embeddings.weight"] = w["embed.tokens"]
    out[p + "embeddings.position_embeddings.weight"] = w["embed.positions"]
    _ln(p + "embeddings.LayerNorm", "embed.norm", w, out, gamma_beta)
    _blocks(spec, w, out, p + "encoder.layer.%d.", _MPNET_BLOCK, gamma_beta)
    out[p + "encoder.relative_attention_bias.weight"] = w["relative.bias"]
    if extra:
        d = spec["d_model"]
        out[p + "pooler.dense.weight"] = np.zeros((d, d))
        out[p + "pooler.dense.bias"] = np.zeros((d,))
        out["lm_head.dense.weight"] = np.zeros((d, d))
        out["lm_head.bias"] = np.zeros((spec["vocab"],))
    return out


def _t5(spec, w, extra):
    out = OrderedDict()
    out["shared.weight"] = w["embed.tokens"]
    for n in range(spec["blocks"]):
        L, c = "encoder.block.%d.layer." % n, "blocks.%d." % n
        for m in "qkvo":
            out[L + "0.SelfAttention.%s.weight" % m] = w[c + "attn.%s.weight" % m]
        if n == 0:
            out[L + "0.SelfAttention.relative_attention_bias.weight"] = w["relative.bias"]
        out[L + "0.layer_norm.weight"] = w[c + "norm1.weight"]
        if spec["ffn"] == "gated":
            out[L + "1.DenseReluDense.wi_0.weight"] = w[c + "ffn.gate.weight"]
            out[L + "1.DenseReluDense.wi_1.weight"] = w[c + "ffn.up.weight"]
        else:
            out[L + "1.DenseReluDense.wi.weight"] = w[c + "ffn.up.weight"]
        out[L + "1.DenseReluDense.wo.weight"] = w[c + "ffn.down.weight"]
        out[L + "1.layer_norm.weight"] = w[c + "norm2.weight"]
    out["encoder.final_layer_norm.weight"] = w["final_norm.weight"]
    if extra:
        d = spec["d_model"]
        out["decoder.block.0.layer.0.SelfAttention.q.weight"] = np.zeros((d, d))
        out["decoder.final_layer_norm.weight"] = np.ones((d,))
        out["lm_head.weight"] = np.zeros((spec["vocab"], d))
    return out


def _modernbert(spec, w, p, extra):
    out = OrderedDict()
    out[p + "embeddings.tok_embeddings.weight"] = w["embed.tokens"]
    _ln(p + "embeddings.norm", "embed.norm", w, out, False)
    for n in range(spec["blocks"]):
        L, c = p + "layers.%d." % n, "blocks.%d." % n
        if c + "norm1.weight" in w:
            _ln(L + "attn_norm", c + "norm1", w, out, False)
        # Q|K|V and the (activated) gate|up, stacked along the rows.
        for fused, parts in (("attn.Wqkv", ("attn.q", "attn.k", "attn.v")),
                             ("mlp.Wi", ("ffn.gate", "ffn.up"))):
            for suffix in ("weight", "bias"):
                if c + parts[0] + "." + suffix in w:
                    out[L + fused + "." + suffix] = np.concatenate(
                        [w[c + m + "." + suffix] for m in parts], axis=0)
        _lin(L + "attn.Wo", c + "attn.o", w, out)
        _ln(L + "mlp_norm", c + "norm2", w, out, False)
        _lin(L + "mlp.Wo", c + "ffn.down", w, out)
    _ln(p + "final_norm", "final_norm", w, out, False)
    if extra:
        _unused_mlm_head(spec, out, "head.dense", "head.norm", "decoder")
    return out


def _nomic_bert(spec, w, p, extra):
    # contrastors' NomicBertModel: embeddings (tokens, types), emb_ln, then
    # encoder.layers.N: attn.Wqkv (Q|K|V stacked along the rows),
    # attn.out_proj, norm1, mlp (fc11 * act(fc12) when gated, else fc1), fc2,
    # norm2.
    out = OrderedDict()
    out[p + "embeddings.word_embeddings.weight"] = w["embed.tokens"]
    if "embed.types" in w:
        out[p + "embeddings.token_type_embeddings.weight"] = w["embed.types"]
    _ln(p + "emb_ln", "embed.norm", w, out, False)
    for n in range(spec["blocks"]):
        L, c = p + "encoder.layers.%d." % n, "blocks.%d." % n
        for suffix in ("weight", "bias"):
            if c + "attn.q." + suffix in w:
                out[L + "attn.Wqkv." + suffix] = np.concatenate(
                    [w[c + m + "." + suffix] for m in ("attn.q", "attn.k", "attn.v")], axis=0)
        _lin(L + "attn.out_proj", c + "attn.o", w, out)
        if spec["ffn"] == "gated":
            _lin(L + "mlp.fc11", c + "ffn.up", w, out)
            _lin(L + "mlp.fc12", c + "ffn.gate", w, out)
        else:
            _lin(L + "mlp.fc1", c + "ffn.up", w, out)
        _lin(L + "mlp.fc2", c + "ffn.down", w, out)
        _ln(L + "norm1", c + "norm1", w, out, False)
        _ln(L + "norm2", c + "norm2", w, out, False)
    if extra:  # NomicBertForPreTraining's head, beside the prefix
        d = spec["d_model"]
        out["cls.predictions.transform.dense.weight"] = np.zeros((d, d))
        out["cls.predictions.transform.layer_norm.weight"] = np.ones((d,))
    return out


# A classifier head's tensors as ...ForSequenceClassification names them:
# (dense, output) module names; the encoder sits under the family prefix, the
# head beside it (BERT's pooler inside the encoder, under the prefix).
_HEADS = {"bert": ("{p}pooler.dense", "classifier"),
          "roberta": ("classifier.dense", "classifier.out_proj"),
          "electra": ("classifier.dense", "classifier.out_proj"),
          "distilbert": ("pre_classifier", "classifier"),
          "modernbert": ("head.dense", "classifier")}


# A masked-LM head's tensors as ...ForMaskedLM names them: (transform dense,
# transform norm, decoder weight, decoder bias), beside the encoder.
_MLM = {"bert": ("cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
                 "cls.predictions.decoder.weight", "cls.predictions.bias"),
        "roberta": ("lm_head.dense", "lm_head.layer_norm", "lm_head.decoder.weight",
                    "lm_head.bias"),
        "distilbert": ("vocab_transform", "vocab_layer_norm", "vocab_projector.weight",
                       "vocab_projector.bias"),
        "modernbert": ("head.dense", "head.norm", "decoder.weight", "decoder.bias")}


def _head(layout, spec, w, p, out):
    if spec["head"]["scheme"] == "colbert":  # colbert-ir: `linear` beside `bert.`
        out["linear.weight"] = w["head.linear.weight"]
        return out
    if spec["head"]["scheme"] == "dense":
        # A sentence-transformers Dense module's own file, whose tensors the
        # loader names under the module's path.
        _lin("2_Dense/linear", "head.projection", w, out)
        return out
    if spec["head"]["scheme"] in ("mlm", "splade"):
        dense, norm, decoder, bias = _MLM[layout]
        _lin(dense, "head.transform", w, out)
        _ln(norm, "head.transform_norm", w, out, False)
        # Tied to the token embeddings: saved without it, as transformers does.
        if not np.array_equal(w["head.decoder.weight"], w["embed.tokens"]):
            out[decoder] = w["head.decoder.weight"]
        out[bias] = w["head.decoder.bias"]
        return out
    if spec["head"]["scheme"] != "classifier":
        return out
    dense, output = _HEADS[layout]
    if "head.dense.weight" in w:
        _lin(dense.format(p=p), "head.dense", w, out)
    if "head.norm.weight" in w:  # ModernBERT's head.norm
        _ln("head.norm", "head.norm", w, out, False)
    _lin(output, "head.out", w, out)
    return out


def to_hf(layout, spec, weights, prefix="", gamma_beta=False, extra=True):
    """The canonical `weights` of `spec` under the `layout`'s HF names."""
    spec = ref.normalize_spec(spec)
    missing = [n for n in ref.weight_shapes(spec) if n not in weights]
    if missing:
        raise KeyError("weights lack %s" % ", ".join(missing[:4]))
    if layout in ("bert", "roberta", "electra"):  # ElectraModel: BERT's names
        return _head(layout, spec, weights, prefix,
                     _bert(spec, weights, prefix, gamma_beta, extra))
    if layout == "mpnet":
        if spec["head"]["scheme"] != "none":
            raise ValueError("mpnet: no head is written in this layout")
        return _mpnet(spec, weights, prefix, gamma_beta, extra)
    if layout == "nomic_bert":
        if spec["head"]["scheme"] != "none":
            raise ValueError("nomic_bert: no head is written in this layout")
        return _nomic_bert(spec, weights, prefix, extra)
    if layout == "distilbert":
        return _head(layout, spec, weights, prefix,
                     _distilbert(spec, weights, prefix, extra))
    if layout == "t5":
        if prefix:
            raise ValueError("t5 checkpoints have no family prefix")
        return _head(layout, spec, weights, prefix, _t5(spec, weights, extra))
    if layout == "modernbert":
        return _head(layout, spec, weights, prefix,
                     _modernbert(spec, weights, prefix, extra))
    raise ValueError("unknown layout %r (expected one of %s)" % (layout, ", ".join(LAYOUTS)))


def hf_name_count(layout, spec):
    """How many tensors the encoder reads from a file in `layout`."""
    w = {n: np.zeros(s) for n, s in ref.weight_shapes(spec).items()}
    return len(to_hf(layout, spec, w, extra=False))


if __name__ == "__main__":
    # Self-check: every canonical tensor lands under exactly one HF name
    # (fused ones as row ranges) for a spec of each family.
    specs = {
        "bert": dict(d_model=16, heads=2, blocks=2, vocab=11, type_vocab=2,
                     positional="learned", embed_norm=True, activation="gelu"),
        "electra": dict(d_model=16, heads=2, blocks=2, vocab=11, type_vocab=2,
                        positional="learned", embed_norm=True, activation="gelu"),
        "roberta": dict(d_model=16, heads=2, blocks=2, vocab=11, type_vocab=1,
                        positional="learned", position_offset=2, embed_norm=True),
        "distilbert": dict(d_model=16, heads=2, blocks=2, vocab=11, positional="learned",
                           embed_norm=True, eps=1e-12),
        "mpnet": dict(d_model=16, heads=2, blocks=2, vocab=11, position_offset=2,
                      embed_norm=True, positional={"scheme": "relative", "absolute": True}),
        "nomic_bert": dict(d_model=16, heads=2, blocks=2, vocab=11, type_vocab=2, bias=False,
                           embed_norm=True, ffn="gated", activation="silu",
                           positional={"scheme": "rope", "base": 1000.0}),
        "t5": dict(d_model=16, heads=2, head_dim=4, blocks=2, vocab=11, norm="pre",
                   norm_type="rmsnorm", bias=False, ffn="gated", activation="gelu_tanh",
                   positional={"scheme": "relative"}, attention_scale=1.0),
        "modernbert": dict(d_model=16, heads=2, blocks=3, vocab=11, norm="pre", bias=False,
                           norm_bias=False, first_attn_norm=False, embed_norm=True,
                           ffn="gated", activation="gelu", window=4, global_every=3,
                           positional={"scheme": "rope", "base": 160000.0,
                                       "local_base": 10000.0}),
    }
    for layout, s in specs.items():
        s = ref.normalize_spec(dict(s))
        w = ref.random_weights(s, seed=1)
        hf = to_hf(layout, s, w, extra=False)
        total = sum(np.asarray(v).size for v in hf.values())
        assert total == sum(np.asarray(v).size for v in w.values()), layout
        assert not any(re.search(r"\b(gamma|beta)\b", n) for n in hf), layout
        print("%-10s %3d canonical tensors -> %3d HF tensors" % (layout, len(w), len(hf)))
