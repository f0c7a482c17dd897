"""NomicBERT's forward in torch, transcribed from nomic-ai's contrastors
(modeling_hf_nomic_bert.py: NomicBertEmbeddings, NomicBertAttention with
NomicBertRotaryEmbedding, NomicBertBlock's post-norm path, the gated and
plain MLPs), reading the tensors under their Hugging Face names, in float64.
It is the check of the nomic_bert layout that owes nothing to encc's
canonical names or to reference.py: which half of the gated layer is
activated, how Wqkv splits, how rotate_half pairs the dimensions.

forward(hf, config, tokens, lengths) -> [batch, seq, d] hidden states
mean_pool(hidden, lengths) -> [batch, d], sentence-transformers' mean
"""
import torch
import torch.nn.functional as F


def _rotate_half(x, interleaved):
    if not interleaved:
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def _rotary(x, base, interleaved):
    """x: [batch, seq, heads, head_dim], every dimension rotated."""
    seq, dim = x.shape[1], x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    freqs = torch.outer(torch.arange(seq, dtype=torch.float64), inv_freq)
    cos, sin = torch.cos(freqs), torch.sin(freqs)
    if interleaved:
        cos, sin = cos.repeat_interleave(2, -1), sin.repeat_interleave(2, -1)
    else:
        cos, sin = torch.cat((cos, cos), -1), torch.cat((sin, sin), -1)
    cos, sin = cos[None, :, None, :], sin[None, :, None, :]
    return x * cos + _rotate_half(x, interleaved) * sin


def _linear(x, hf, name):
    w = hf[name + ".weight"]
    b = hf.get(name + ".bias")
    return F.linear(x, w, b)


def forward(hf, config, tokens, lengths, prefix=""):
    t = {k[len(prefix):] if k.startswith(prefix) else k: torch.as_tensor(v, dtype=torch.float64)
         for k, v in hf.items()}
    d, heads = config["n_embd"], config["n_head"]
    eps = config.get("layer_norm_epsilon", 1e-5)
    base = float(config.get("rotary_emb_base", 10000))
    interleaved = bool(config.get("rotary_emb_interleaved", False))
    act = {"swiglu": F.silu, "geglu": F.gelu}.get(config.get("activation_function"))
    tokens = torch.as_tensor(tokens, dtype=torch.long)
    batch, seq = tokens.shape
    mask = torch.arange(seq)[None, :] < torch.as_tensor(lengths)[:, None]

    x = t["embeddings.word_embeddings.weight"][tokens]
    if "embeddings.token_type_embeddings.weight" in t:
        x = x + t["embeddings.token_type_embeddings.weight"][torch.zeros_like(tokens)]
    x = F.layer_norm(x, (d,), t["emb_ln.weight"], t.get("emb_ln.bias"), eps)
    bias = torch.zeros(batch, 1, 1, seq, dtype=torch.float64)
    bias[~mask[:, None, None, :]] = float("-inf")
    for n in range(config["n_layer"]):
        L = "encoder.layers.%d." % n
        qkv = _linear(x, t, L + "attn.Wqkv").view(batch, seq, 3, heads, d // heads)
        q = _rotary(qkv[:, :, 0], base, interleaved)
        k = _rotary(qkv[:, :, 1], base, interleaved)
        v = qkv[:, :, 2]
        q, k, v = (a.permute(0, 2, 1, 3) for a in (q, k, v))
        scores = q @ k.transpose(-1, -2) / (d // heads) ** 0.5 + bias
        o = (torch.softmax(scores, -1) @ v).permute(0, 2, 1, 3).reshape(batch, seq, d)
        x = F.layer_norm(_linear(o, t, L + "attn.out_proj") + x, (d,),
                         t[L + "norm1.weight"], t.get(L + "norm1.bias"), eps)
        if act is not None:
            y = _linear(x, t, L + "mlp.fc11") * act(_linear(x, t, L + "mlp.fc12"))
        else:
            y = F.gelu(_linear(x, t, L + "mlp.fc1"), approximate="tanh")
        x = F.layer_norm(_linear(y, t, L + "mlp.fc2") + x, (d,),
                         t[L + "norm2.weight"], t.get(L + "norm2.bias"), eps)
    return x


def mean_pool(hidden, lengths):
    seq = hidden.shape[1]
    m = (torch.arange(seq)[None, :] < torch.as_tensor(lengths)[:, None]).to(hidden.dtype)
    return (hidden * m[..., None]).sum(1) / m.sum(1, keepdim=True)
