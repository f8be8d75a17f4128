"""The forward pass of a BERT sentence encoder (all-MiniLM-L6-v2 and its kin) in numpy.

The weights are the ``BertModel`` tensors of a sentence-transformers model, by
their names in ``model.safetensors``. A sentence becomes token ids (the model's
own tokenizer.json), runs through the embeddings and the encoder layers, and
its token states are mean-pooled over the attention mask and scaled to unit
length, as the model's ``modules.json`` (Transformer, Pooling, Normalize) says.
Matches sentence-transformers' output to cosine 0.9999 (``tests/test_embed_model.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]

# Abramowitz and Stegun 7.1.26: erf to 1.5e-7, enough for float32 (numpy has no erf)
_P, _A = 0.3275911, (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def _erf(x: Array) -> Array:
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + _P * a)
    poly = t * (_A[0] + t * (_A[1] + t * (_A[2] + t * (_A[3] + t * _A[4]))))
    out: Array = (sign * (1.0 - poly * np.exp(-a * a))).astype(np.float32)
    return out


def gelu(x: Array) -> Array:
    """BERT's exact GELU, x * Phi(x)."""
    out: Array = (0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))).astype(np.float32)
    return out


def layer_norm(x: Array, weight: Array, bias: Array, eps: float) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    out: Array = (centred / np.sqrt(var + np.float32(eps)) * weight + bias).astype(np.float32)
    return out


class Bert:
    """A BERT encoder's weights and shape; ``encode`` turns token ids into unit sentence vectors."""

    def __init__(self, tensors: Mapping[str, Array], heads: int, layers: int, eps: float) -> None:
        self.heads, self.layers, self.eps = heads, layers, eps
        w = {name: np.ascontiguousarray(t, dtype=np.float32) for name, t in tensors.items()}
        self._emb = (w["embeddings.word_embeddings.weight"], w["embeddings.position_embeddings.weight"],
                     w["embeddings.token_type_embeddings.weight"][0], w["embeddings.LayerNorm.weight"],
                     w["embeddings.LayerNorm.bias"])
        self._layers = []
        for i in range(layers):
            p = f"encoder.layer.{i}."
            # query, key and value as one product: x @ [Wq; Wk; Wv]^T
            qkv = np.concatenate([w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value")]).T
            qkv_b = np.concatenate([w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")])
            self._layers.append((
                np.ascontiguousarray(qkv), qkv_b,
                np.ascontiguousarray(w[p + "attention.output.dense.weight"].T), w[p + "attention.output.dense.bias"],
                w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"],
                np.ascontiguousarray(w[p + "intermediate.dense.weight"].T), w[p + "intermediate.dense.bias"],
                np.ascontiguousarray(w[p + "output.dense.weight"].T), w[p + "output.dense.bias"],
                w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]))
        self.dim = int(self._emb[0].shape[1])
        self.max_positions = int(self._emb[1].shape[0])

    def encode(self, ids: Sequence[Sequence[int]]) -> Array:
        """Unit-length sentence vectors (one row per sequence of token ids, all of one batch)."""
        n, length = len(ids), max((len(s) for s in ids), default=0)
        out = np.zeros((n, self.dim), dtype=np.float32)
        if n == 0 or length == 0:
            return out
        tokens = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=np.float32)
        for row, seq in enumerate(ids):
            tokens[row, :len(seq)] = seq
            mask[row, :len(seq)] = 1.0
        words, positions, token_type, ln_w, ln_b = self._emb
        x = layer_norm(words[tokens] + positions[:length] + token_type, ln_w, ln_b, self.eps)
        # padding gets -inf before the softmax (a large negative, as transformers does)
        bias = ((1.0 - mask) * np.float32(np.finfo(np.float32).min))[:, None, None, :]
        heads, size = self.heads, self.dim // self.heads
        scale = np.float32(1.0 / np.sqrt(size))
        for qkv, qkv_b, o_w, o_b, a_lw, a_lb, i_w, i_b, f_w, f_b, f_lw, f_lb in self._layers:
            q, k, v = np.split(x @ qkv + qkv_b, 3, axis=-1)
            q = q.reshape(n, length, heads, size).transpose(0, 2, 1, 3)
            k = k.reshape(n, length, heads, size).transpose(0, 2, 3, 1)
            v = v.reshape(n, length, heads, size).transpose(0, 2, 1, 3)
            scores = (q @ k) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, self.dim)
            x = layer_norm(context @ o_w + o_b + x, a_lw, a_lb, self.eps)
            x = layer_norm(gelu(x @ i_w + i_b) @ f_w + f_b + x, f_lw, f_lb, self.eps)
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: Array = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return unit
