"""PyTorch cross-checks for reference.py (run with /usr/bin/python3).

1. torch.nn.TransformerEncoder (batch_first, dropout 0, eval, float64) and the
   mapping of its parameters onto the weight names of docs/weights.md.
2. torch_forward(): a second, independent implementation of docs/numerics.md in
   torch ops, written the way the published models do it (HF Llama
   rotate_half, RoFormer interleaved sin/cos, BLOOM-style ALiBi slopes, HF T5
   _relative_position_bucket, torch layer_norm / gelu), used to check the
   numpy reference on the schemes torch.nn.TransformerEncoder cannot express.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F

from enc_dev import reference as ref


# --------------------------------------------------------------------------
# torch.nn.TransformerEncoder
# --------------------------------------------------------------------------
def make_torch_encoder(d_model, heads, d_ff, blocks, norm_first, activation, eps=1e-5, seed=0):
    torch.manual_seed(seed)
    layer = torch.nn.TransformerEncoderLayer(
        d_model, heads, dim_feedforward=d_ff, dropout=0.0, activation=activation,
        layer_norm_eps=eps, batch_first=True, norm_first=norm_first, dtype=torch.float64)
    final = torch.nn.LayerNorm(d_model, eps=eps, dtype=torch.float64) if norm_first else None
    kw = {}
    try:
        enc = torch.nn.TransformerEncoder(layer, blocks, norm=final, enable_nested_tensor=False)
    except TypeError:  # older torch
        enc = torch.nn.TransformerEncoder(layer, blocks, norm=final)
    # The default init leaves biases at 0 and norms at (1, 0): perturb them so
    # the mapping of every tensor is exercised.
    g = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for name, p in enc.named_parameters():
            if name.endswith("bias"):
                p.copy_(0.1 * torch.randn(p.shape, generator=g, dtype=torch.float64))
            elif "norm" in name:
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=g, dtype=torch.float64))
    enc.eval()
    return enc


def spec_for_torch(d_model, heads, d_ff, blocks, norm_first, activation, eps=1e-5, max_len=64,
                   positional="sinusoidal", pooling="none"):
    return ref.normalize_spec({
        "name": "torch_encoder", "d_model": d_model, "heads": heads, "d_ff": d_ff,
        "blocks": blocks, "max_len": max_len, "vocab": 0, "type_vocab": 0,
        "positional": {"scheme": positional}, "norm": "pre" if norm_first else "post",
        "norm_type": "layernorm", "eps": eps, "activation": activation, "bias": True,
        "embed_scale": 1.0, "embed_norm": False, "final_norm": bool(norm_first),
        "pooling": pooling})


# A block's weights (after `blocks.N.`) and torch.nn.TransformerEncoderLayer's
# names for them (after `layers.N.`), Q, K and V aside: torch stacks them in
# self_attn.in_proj_weight / in_proj_bias.
LAYER_NAMES = [("attn.o.weight", "self_attn.out_proj.weight"),
               ("attn.o.bias", "self_attn.out_proj.bias"),
               ("ffn.up.weight", "linear1.weight"), ("ffn.up.bias", "linear1.bias"),
               ("ffn.down.weight", "linear2.weight"), ("ffn.down.bias", "linear2.bias"),
               ("norm1.weight", "norm1.weight"), ("norm1.bias", "norm1.bias"),
               ("norm2.weight", "norm2.weight"), ("norm2.bias", "norm2.bias")]


def export_weights(enc):
    """TransformerEncoder -> {spec weight name: float64 numpy array}."""
    w = {}
    sd = {k: v.detach().cpu().double().numpy().copy() for k, v in enc.state_dict().items()}
    n = len(enc.layers)
    d = enc.layers[0].self_attn.embed_dim
    for i in range(n):
        t = "layers.%d." % i
        p = "blocks.%d." % i
        ipw, ipb = sd[t + "self_attn.in_proj_weight"], sd[t + "self_attn.in_proj_bias"]
        for j, m in enumerate("qkv"):
            w[p + "attn.%s.weight" % m] = ipw[j * d:(j + 1) * d]
            w[p + "attn.%s.bias" % m] = ipb[j * d:(j + 1) * d]
        for enc_name, torch_name in LAYER_NAMES:
            w[p + enc_name] = sd[t + torch_name]
    if "norm.weight" in sd:
        w["final_norm.weight"] = sd["norm.weight"]
        w["final_norm.bias"] = sd["norm.bias"]
    return w


def torch_encoder_forward(enc, embeddings, lengths=None, fast_path=False):
    """Run enc on embeddings + sinusoidal PE. src_key_padding_mask: True means
    'ignore this key'. Returns float64 numpy [B,S,d]; rows i >= len and whole
    sequences with len 0 are whatever torch produces (NaN, garbage)."""
    x = np.asarray(embeddings, dtype=np.float64)
    B, S, d = x.shape
    x = torch.from_numpy(x + ref.sinusoidal_table(S, d)[None])
    mask = None
    if lengths is not None:
        mask = torch.arange(S)[None, :] >= torch.as_tensor(np.asarray(lengths))[:, None]
    if fast_path:
        with torch.no_grad():
            y = enc(x, src_key_padding_mask=mask)
    else:
        # autograd enabled + parameters requiring grad keeps torch off its
        # fused inference fast path: the plain Python formulas run.
        with torch.enable_grad():
            y = enc(x, src_key_padding_mask=mask)
    return y.detach().numpy()


# --------------------------------------------------------------------------
# published formulations of the positional pieces, in torch
# --------------------------------------------------------------------------
def hf_t5_relative_position_bucket(relative_position, bidirectional=True, num_buckets=32,
                                   max_distance=128):
    """transformers.models.t5.modeling_t5.T5Attention._relative_position_bucket"""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    # now relative_position is in the range [0, inf)

    # half of the buckets are for exact increments in positions
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact

    # The other half of the buckets are for logarithmically bigger bins in positions up to max_distance
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
    )

    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


def hf_t5_bias(S, table, buckets, max_distance):
    """T5Attention.compute_bias: values[h, i, j] = table[bucket(j - i), h]."""
    context_position = torch.arange(S, dtype=torch.long)[:, None]
    memory_position = torch.arange(S, dtype=torch.long)[None, :]
    relative_position = memory_position - context_position  # shape (query_length, key_length)
    bucket = hf_t5_relative_position_bucket(relative_position, True, buckets, max_distance)
    values = torch.nn.functional.embedding(bucket, torch.as_tensor(table))  # (q, k, heads)
    return values.permute(2, 0, 1)


def hf_mpnet_relative_position_bucket(relative_position, num_buckets=32, max_distance=128):
    """transformers.models.mpnet.modeling_mpnet.MPNetEncoder.relative_position_bucket"""
    ret = 0
    n = -relative_position

    num_buckets //= 2
    ret += (n < 0).to(torch.long) * num_buckets
    n = torch.abs(n)

    max_exact = num_buckets // 2
    is_small = n < max_exact

    val_if_large = max_exact + (
        torch.log(n.float() / max_exact) / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)

    val_if_large = torch.min(val_if_large, torch.full_like(val_if_large, num_buckets - 1))
    ret += torch.where(is_small, n, val_if_large)
    return ret


def hf_mpnet_bias(S, table):
    """MPNetEncoder.compute_position_bias (its defaults: 32 buckets, distance
    128): values[h, i, j] = table[bucket(j - i), h]."""
    context_position = torch.arange(S, dtype=torch.long)[:, None]
    memory_position = torch.arange(S, dtype=torch.long)[None, :]
    relative_position = memory_position - context_position
    rp_bucket = hf_mpnet_relative_position_bucket(relative_position, num_buckets=32)
    values = torch.nn.functional.embedding(rp_bucket, torch.as_tensor(table))
    return values.permute([2, 0, 1])


def bloom_alibi_slopes(num_heads):
    """Slopes as in transformers' BLOOM build_alibi_tensor (closed form)."""
    closest_power_of_2 = 2 ** math.floor(math.log2(num_heads))
    base = torch.tensor(2 ** (-(2 ** -(math.log2(closest_power_of_2) - 3))), dtype=torch.float64)
    powers = torch.arange(1, 1 + closest_power_of_2, dtype=torch.int64)
    slopes = torch.pow(base, powers)
    if closest_power_of_2 != num_heads:
        extra_base = torch.tensor(2 ** (-(2 ** -(math.log2(2 * closest_power_of_2) - 3))),
                                  dtype=torch.float64)
        num_remaining_heads = min(closest_power_of_2, num_heads - closest_power_of_2)
        extra_powers = torch.arange(1, 1 + 2 * num_remaining_heads, 2, dtype=torch.int64)
        slopes = torch.cat([slopes, torch.pow(extra_base, extra_powers)], dim=0)
    return slopes


def rotate_half(x):
    """HF Llama: rotates half the hidden dims of the input."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def llama_rope(x, base=10000.0):
    """HF Llama LlamaRotaryEmbedding + apply_rotary_pos_emb on x [..., S, d_k]."""
    S, dim = x.shape[-2], x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    t = torch.arange(S, dtype=torch.float64)
    freqs = torch.outer(t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()
    return (x * cos) + (rotate_half(x) * sin)


def roformer_rope(x, base=10000.0):
    """RoFormer (HF RoFormerSelfAttention.apply_rotary_position_embeddings) on
    x [..., S, d_k], with sinusoidal_pos = [sin | cos] over d_k/2 frequencies."""
    S, dim = x.shape[-2], x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    ang = torch.outer(torch.arange(S, dtype=torch.float64), inv_freq)
    sinusoidal_pos = torch.cat([ang.sin(), ang.cos()], dim=-1)
    sin, cos = sinusoidal_pos.chunk(2, dim=-1)
    sin_pos = torch.stack([sin, sin], dim=-1).reshape_as(sinusoidal_pos)
    cos_pos = torch.stack([cos, cos], dim=-1).reshape_as(sinusoidal_pos)
    rotate_half_x = torch.stack([-x[..., 1::2], x[..., ::2]], dim=-1).reshape_as(x)
    return x * cos_pos + rotate_half_x * sin_pos


# --------------------------------------------------------------------------
# independent spec forward in torch
# --------------------------------------------------------------------------
def torch_forward(spec, weights, tokens=None, token_types=None, embeddings=None, lengths=None,
                  return_probs=False):
    s = ref.normalize_spec(spec)
    W = {k: torch.as_tensor(np.asarray(v, dtype=np.float64)) for k, v in weights.items()}
    d, H, dk = s["d_model"], s["heads"], s["d_k"]
    if s["vocab"] > 0:
        ids = torch.as_tensor(np.asarray(tokens, dtype=np.int64))
        B, S = ids.shape
        x = F.embedding(ids, W["embed.tokens"]) * s["embed_scale"]
        if s["type_vocab"] > 0:
            tt = (torch.zeros_like(ids) if token_types is None
                  else torch.as_tensor(np.asarray(token_types, dtype=np.int64)))
            x = x + F.embedding(tt, W["embed.types"])
    else:
        x = torch.as_tensor(np.asarray(embeddings, dtype=np.float64))
        B, S = x.shape[:2]
    L = (torch.full((B,), S, dtype=torch.long) if lengths is None
         else torch.as_tensor(np.asarray(lengths, dtype=np.int64)))
    pos = s["positional"]

    def nrm(v, prefix):
        if s["norm_type"] == "layernorm":
            beta = W[prefix + ".bias"] if s["norm_bias"] else None
            return F.layer_norm(v, (d,), W[prefix + ".weight"], beta, s["eps"])
        var = v.pow(2).mean(-1, keepdim=True)  # T5LayerNorm
        return W[prefix + ".weight"] * (v * torch.rsqrt(var + s["eps"]))

    def lin(v, name):
        return F.linear(v, W[name + ".weight"], W[name + ".bias"] if s["bias"] else None)

    if pos["scheme"] == "sinusoidal":
        # the seed's numpy code, in torch
        p = torch.arange(S, dtype=torch.float64)[:, None]
        i = torch.arange(d, dtype=torch.float64)[None, :]
        angles = p / (10000 ** (2 * torch.div(i, 2, rounding_mode="floor") / d))
        pe = torch.zeros(S, d, dtype=torch.float64)
        pe[:, 0::2] = torch.sin(angles[:, 0::2])
        pe[:, 1::2] = torch.cos(angles[:, 1::2])
        x = x + pe
    elif pos["scheme"] == "learned" or (pos["scheme"] == "relative" and pos["absolute"]):
        # RoBERTa's (and MPNet's) create_position_ids_from_input_ids:
        # positions start at padding_idx + 1 = position_offset.
        ids = torch.arange(S) + s["position_offset"]
        x = x + F.embedding(ids, W["embed.positions"])
    if s["embed_norm"]:
        x = nrm(x, "embed.norm")

    bias = torch.zeros(H, S, S, dtype=torch.float64)
    if pos["scheme"] == "alibi":
        ar = torch.arange(S)
        bias = -bloom_alibi_slopes(H)[:, None, None] * (ar[None, :] - ar[:, None]).abs()[None]
    elif pos["scheme"] == "relative" and pos["absolute"]:
        if (pos["buckets"], pos["max_distance"]) != (32, 128):
            raise ValueError("MPNet's code buckets into 32 up to distance 128")
        bias = hf_mpnet_bias(S, W["relative.bias"])
    elif pos["scheme"] == "relative":
        bias = hf_t5_bias(S, W["relative.bias"], pos["buckets"], pos["max_distance"])
    keep = torch.arange(S)[None, :] < L[:, None]  # [B, S]
    mask = torch.where(keep, 0.0, float("-inf")).to(torch.float64)[:, None, None, :]
    # ModernBERT's sliding_window_mask: |i - j| <= local_attention // 2.
    ar = torch.arange(S)
    window = torch.where((ar[None, :] - ar[:, None]).abs() <= s["window"] // 2, 0.0,
                         float("-inf")).to(torch.float64)
    probs = []

    def attn(v, p, local):
        def split(t):
            return t.view(B, S, H, dk).transpose(1, 2)
        q, k, vv = split(lin(v, p + "attn.q")), split(lin(v, p + "attn.k")), split(lin(v, p + "attn.v"))
        if pos["scheme"] == "rope":
            f = llama_rope if pos["style"] == "halves" else roformer_rope
            base = pos["local_base"] if local else pos["base"]
            q, k = f(q, base), f(k, base)
        sc = (q @ k.transpose(-1, -2)) * s["attention_scale"] + bias[None] + mask
        if local:
            sc = sc + window
        pr = torch.softmax(sc, dim=-1)
        pr = torch.nan_to_num(pr, nan=0.0)  # sequences of length 0
        pr = pr * keep[:, None, :, None]    # padded query rows
        probs.append(pr)
        o = (pr @ vv).transpose(1, 2).reshape(B, S, H * dk)
        return lin(o, p + "attn.o")

    def act_of(name):
        return {"relu": F.relu, "gelu": F.gelu, "silu": F.silu,
                "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"), "tanh": torch.tanh,
                "quick_gelu": lambda t: t * torch.sigmoid(1.702 * t)}[name]

    act = act_of(s["activation"])

    def ff(t, p):
        if s["ffn"] == "gated":
            return lin(act(lin(t, p + "ffn.gate")) * lin(t, p + "ffn.up"), p + "ffn.down")
        return lin(act(lin(t, p + "ffn.up")), p + "ffn.down")

    for b in range(s["blocks"]):
        p = "blocks.%d." % b
        local = ref.is_local_block(s, b)
        if s["norm"] == "post":
            h = nrm(x + attn(x, p, local), p + "norm1")
            x = nrm(h + ff(h, p), p + "norm2")
        else:
            n1 = x if (b == 0 and not s["first_attn_norm"]) else nrm(x, p + "norm1")
            h = x + attn(n1, p, local)
            x = h + ff(nrm(h, p + "norm2"), p)
    if s["final_norm"]:
        x = nrm(x, "final_norm")
    x = x * keep[:, :, None]
    head = s["head"]
    if head["scheme"] in ("mlm", "splade"):
        # BertLMPredictionHead (RobertaLMHead, DistilBERT's vocab_*, ModernBERT's
        # head + decoder): transform dense, ACT2FN activation, LayerNorm, then
        # the decoder Linear with its bias.
        h = nrm(act_of(head["activation"])(lin(x, "head.transform")), "head.transform_norm")
        x = F.linear(h, W["head.decoder.weight"], W["head.decoder.bias"])
        if head["scheme"] == "splade":
            # sentence-transformers' SpladePooling (max): log1p(relu(logits))
            # times the attention mask, then the maximum over tokens.
            x = torch.log1p(torch.relu(x)) * keep[:, :, None]
            x = torch.max(x, dim=1).values
        else:
            x = x * keep[:, :, None]
        if return_probs:
            return x.detach().numpy(), torch.stack(probs).numpy()
        return x.detach().numpy()
    if s["pooling"] == "cls":
        x = x[:, 0]
    elif s["pooling"] == "mean":
        x = x.sum(1) / L.clamp(min=1)[:, None]
    elif s["pooling"] == "max":
        # sentence-transformers' max_tokens: padding set to -1e9, then max
        # (a sequence with no valid token pools to 0 in encc).
        x = x.masked_fill(keep[:, :, None] == 0, -1e9).max(1).values
        x = x * (L > 0)[:, None]
    elif s["pooling"] == "last":
        # sentence-transformers' lasttoken on right padding: row len - 1.
        x = x[torch.arange(x.shape[0]), (L - 1).clamp(min=0)] * (L > 0)[:, None]
    if head["scheme"] == "dense":
        # sentence-transformers' Dense module: nn.Linear, then its activation
        # (nn.Tanh or nn.Identity).
        lin_ = torch.nn.Linear(d, head["dim"], bias=head["bias"]).double()
        lin_.weight.data = W["head.projection.weight"]
        if head["bias"]:
            lin_.bias.data = W["head.projection.bias"]
        act_ = torch.nn.Tanh() if head["activation"] == "tanh" else torch.nn.Identity()
        x = act_(lin_(x)).detach()
    elif head["scheme"] == "classifier":
        # The heads as transformers writes them (torch.nn modules of the same
        # weights): BertPooler's tanh(dense) then the classifier Linear;
        # RobertaClassificationHead / ElectraClassificationHead's dense, act,
        # out_proj; DistilBERT's pre_classifier, ReLU, classifier.
        if head["dense"]:
            dense = torch.nn.Linear(d, d, bias="head.dense.bias" in W).double()
            dense.weight.data = W["head.dense.weight"]
            if "head.dense.bias" in W:
                dense.bias.data = W["head.dense.bias"]
            x = {"tanh": torch.nn.Tanh(), "relu": torch.nn.ReLU(),
                 "gelu": torch.nn.GELU()}[head["activation"]](dense(x))
            if head["norm"]:  # ModernBertPredictionHead's norm
                x = nrm(x, "head.norm")
        out = torch.nn.Linear(d, head["labels"]).double()
        out.weight.data, out.bias.data = W["head.out.weight"], W["head.out.bias"]
        x = out(x).detach()
        if head["scores"] == "sigmoid":
            x = torch.sigmoid(x)
        elif head["scores"] == "softmax":
            x = torch.softmax(x, dim=-1)
    elif head["scheme"] == "colbert":
        # colbert-ir's ColBERT.doc: linear (no bias), then normalize(dim=2);
        # the padded rows (zero) stay zero.
        linear = torch.nn.Linear(d, head["dim"], bias=False).double()
        linear.weight.data = W["head.linear.weight"]
        x = torch.nn.functional.normalize(linear(x), p=2, dim=2).detach()
    elif s["pooling"] != "none":
        x = x[:, :s["output_dim"]]
    if s["normalize"]:
        x = F.normalize(x, p=2.0, dim=-1, eps=1e-12)
    if return_probs:
        return x.numpy(), torch.stack(probs).numpy()
    return x.numpy()
