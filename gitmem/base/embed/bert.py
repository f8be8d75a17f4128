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
    """erf(x), computed in place over ``x`` (a scratch array the caller gives up)."""
    sign = np.sign(x)
    np.abs(x, out=x)
    t = np.multiply(x, np.float32(_P))
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    poly = np.full_like(x, np.float32(_A[4]))
    for c in (_A[3], _A[2], _A[1], _A[0]):   # Horner: ((a4 t + a3) t + a2) ...
        poly *= t
        poly += np.float32(c)
    poly *= t
    np.square(x, out=x)
    np.negative(x, out=x)
    np.exp(x, out=x)
    x *= poly
    np.subtract(np.float32(1.0), x, out=x)
    x *= sign
    return x


def gelu(x: Array) -> Array:
    """BERT's exact GELU, x * Phi(x), written over ``x`` (float32 throughout: no temporary of float64)."""
    half = np.multiply(x, np.float32(0.5))
    x *= np.float32(0.7071067811865476)
    phi = _erf(x)
    phi += np.float32(1.0)
    phi *= half
    return phi


def layer_norm(x: Array, weight: Array, bias: Array, eps: float) -> Array:
    """Layer normalisation over the last axis, in place over ``x``."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.square(x).mean(axis=-1, keepdims=True)
    var += np.float32(eps)
    np.sqrt(var, out=var)
    x /= var
    x *= weight
    x += bias
    return x


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
        # every product on a 2-D (tokens, features) matrix: numpy's matmul of a 3-D array by a 2-D one loops
        # in small products, about ten times slower than one BLAS call on the flattened rows
        x = (words[tokens] + positions[:length] + token_type).reshape(n * length, self.dim)
        x = layer_norm(x, ln_w, ln_b, self.eps)
        # padding gets -inf before the softmax (a large negative, as transformers does)
        bias = ((1.0 - mask) * np.float32(np.finfo(np.float32).min))[:, None, None, :]
        heads, size = self.heads, self.dim // self.heads
        scale = np.float32(1.0 / np.sqrt(size))
        for qkv, qkv_b, o_w, o_b, a_lw, a_lb, i_w, i_b, f_w, f_b, f_lw, f_lb in self._layers:
            mixed = x @ qkv
            mixed += qkv_b
            # (n, length, 3, heads, size) -> (3, n, heads, length, size), one copy
            q, k, v = np.ascontiguousarray(mixed.reshape(n, length, 3, heads, size).transpose(2, 0, 3, 1, 4))
            q *= scale
            scores = q @ k.transpose(0, 1, 3, 2)
            scores += bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n * length, self.dim)
            attended = context @ o_w
            attended += o_b
            attended += x
            x = layer_norm(attended, a_lw, a_lb, self.eps)
            inner = x @ i_w
            inner += i_b
            out_ = gelu(inner) @ f_w
            out_ += f_b
            out_ += x
            x = layer_norm(out_, f_lw, f_lb, self.eps)
        x = x.reshape(n, length, self.dim)
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: Array = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return unit
