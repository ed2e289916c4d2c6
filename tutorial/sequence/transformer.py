"""A small decoder-only transformer as a Gluon Block, its blocks those of :mod:`.block`.

GPT (Radford et al. 2018, 2019) reads a sequence of token ids and, at every position,
scores each token of the vocabulary as the next one:

    x      = tokens_table[tokens] + positions[:seq]     # (batch, seq, model_dim)
    x      = block(x)  for each of the N blocks           # causal: position i sees j <= i
    logits = layer_norm(x) @ output + output_bias         # (batch, seq, vocab)

Each block is :func:`tutorial.sequence.block.block` itself, run on the Block's Gluon
Parameters (:meth:`Transformer.weights` assembles them into the same
:class:`~tutorial.sequence.block.BlockWeights`), so autograd reaches every weight and a
``gluon.Trainer`` updates them. The position table is learned (one row per position up to
``max_len``). :func:`transformer_reference` is the whole model in float64 NumPy, built
from :func:`~tutorial.sequence.block.block_reference`: the independent reference.

>>> w = init_transformer(vocab=7, max_len=6, model_dim=8, heads=2, blocks=2, seed=0)
>>> net = Transformer(w, heads=2)
>>> net.initialize()
>>> tokens = np.array([[1, 2, 3, 4], [6, 5, 0, 0]])
>>> logits = net(mx.nd.array(tokens)).asnumpy()
>>> logits.shape
(2, 4, 7)
>>> bool(np.abs(logits - transformer_reference(tokens, w, heads=2)).max() < 1e-4)
True
"""

from typing import NamedTuple

import mxnet as mx
import numpy as np
from mxnet import gluon

from tutorial.sequence.attention import Projections
from tutorial.sequence.block import (MLP, BlockWeights, Norm, block, block_reference,
                                     init_block, layer_norm, layer_norm_reference)
from tutorial.validate import check_count


class TransformerWeights(NamedTuple):
    """Every weight of the model (NumPy arrays, or NDArrays from :meth:`Transformer.weights`)."""
    tokens: object          # (vocab, model_dim): one row per token id
    positions: object       # (max_len, model_dim): one row per position
    blocks: tuple           # one BlockWeights per block
    final_norm: Norm        # gain and bias, each (model_dim,)
    output: object          # (model_dim, vocab)
    output_bias: object     # (vocab,)


def init_transformer(vocab, max_len, model_dim, heads, blocks, hidden=None, seed=0):
    """Random float32 NumPy weights; block ``i`` is ``init_block(..., seed=seed + 1 + i)``."""
    vocab, max_len = check_count("vocab", vocab), check_count("max_len", max_len)
    blocks = check_count("blocks", blocks, low=0)
    model_dim = check_count("model_dim", model_dim)
    rng = np.random.default_rng(seed)

    def normal(shape, scale):
        return (rng.normal(size=shape) * scale).astype(np.float32)

    stack = tuple(init_block(model_dim, heads, hidden, seed=seed + 1 + i)
                  for i in range(blocks))
    if not stack:
        init_block(model_dim, heads, hidden)        # the same checks of heads and hidden
    return TransformerWeights(
        normal((vocab, model_dim), 1.0), normal((max_len, model_dim), 0.5), stack,
        Norm(1 + normal(model_dim, 0.1), normal(model_dim, 0.1)),
        normal((model_dim, vocab), model_dim ** -0.5), normal(vocab, 0.1))


def _named(weights):
    """[(name, array)] for every weight, in a fixed order (names are Parameter names)."""
    out = [("tokens", weights.tokens), ("positions", weights.positions)]
    for i, bw in enumerate(weights.blocks):
        out += [(f"block{i}_{part}_{field}", array) for part, group in zip(bw._fields, bw)
                for field, array in zip(group._fields, group)]
    out += [("final_norm_gain", weights.final_norm.gain),
            ("final_norm_bias", weights.final_norm.bias),
            ("output", weights.output), ("output_bias", weights.output_bias)]
    return out


def _assemble(arrays, blocks):
    """The inverse of :func:`_named`: a TransformerWeights from the arrays in that order."""
    it = iter(arrays)
    tokens, positions = next(it), next(it)
    stack = tuple(BlockWeights(*(kind(*(next(it) for _ in kind._fields))
                                 for kind in (Norm, Projections, Norm, MLP)))
                  for _ in range(blocks))
    final = Norm(next(it), next(it))
    return TransformerWeights(tokens, positions, stack, final, next(it), next(it))


def check_tokens(tokens, vocab, max_len):
    """Raise a ValueError sentence unless ``tokens`` is (batch, seq) of ids in [0, vocab)."""
    shape = tuple(tokens.shape)
    if len(shape) != 2:
        raise ValueError(f"tokens must have 2 axes (batch, seq), got shape {shape}: for "
                         f"one sequence use tokens.reshape((1, -1))")
    if shape[1] > max_len:
        raise ValueError(f"tokens has seq={shape[1]} positions but the model has position "
                         f"embeddings for max_len={max_len}: cut the sequence or build the "
                         f"model with a larger max_len")
    ids = np.asarray(tokens.asnumpy() if hasattr(tokens, "asnumpy") else tokens)
    if ids.size and (not np.array_equal(ids, np.round(ids)) or ids.min() < 0
                     or ids.max() >= vocab):
        bad = ids[(ids != np.round(ids)) | (ids < 0) | (ids >= vocab)].ravel()[0]
        raise ValueError(f"tokens must be whole numbers in [0, vocab) = [0, {vocab}), got "
                         f"{bad.item()!r}: map the data to ids below {vocab} or build the "
                         f"model with a larger vocab")


def transformer_reference(tokens, weights, heads):
    """The logits (batch, seq, vocab) in float64 NumPy (tokens and weights NumPy arrays)."""
    tokens = np.asarray(tokens)
    check_tokens(tokens, len(weights.tokens), len(weights.positions))
    tokens = tokens.astype(np.int64)
    x = np.asarray(weights.tokens, np.float64)[tokens] + \
        np.asarray(weights.positions, np.float64)[:tokens.shape[1]]
    for bw in weights.blocks:
        x = block_reference(x, bw, heads, causal=True)
    x = layer_norm_reference(x, weights.final_norm)
    return x @ np.asarray(weights.output, np.float64) + np.asarray(weights.output_bias)


class Transformer(gluon.Block):
    """The model as a Gluon Block holding ``weights`` (a :class:`TransformerWeights`) as
    Parameters, each initialised to its array: call ``net.initialize(ctx=...)``."""

    def __init__(self, weights, heads, **kwargs):
        super().__init__(**kwargs)
        self.heads = check_count("heads", heads)
        self.vocab, self.model_dim = np.shape(weights.tokens)
        self.max_len, self.blocks = len(weights.positions), len(weights.blocks)
        if self.model_dim % self.heads:
            raise ValueError(f"heads={heads} does not divide model_dim={self.model_dim}")
        with self.name_scope():
            self._order = [self.params.get(name, shape=np.shape(array),
                                           init=mx.init.Constant(np.asarray(array)))
                           for name, array in _named(weights)]

    def weights(self, ctx=None):
        """The Parameters' arrays on ``ctx`` as a :class:`TransformerWeights` (the arrays
        themselves, not copies: a backward writes their gradients to the Parameters)."""
        return _assemble([p.data(ctx) for p in self._order], self.blocks)

    def forward(self, tokens):
        """Logits (batch, seq, vocab) for token ids (batch, seq), an NDArray."""
        if not isinstance(tokens, mx.nd.NDArray):
            raise TypeError(f"tokens must be an MXNet NDArray, got {type(tokens).__name__}: "
                            f"pass mx.nd.array(tokens, ctx=...)")
        check_tokens(tokens, self.vocab, self.max_len)
        w = self.weights(tokens.context)
        seq = tokens.shape[1]
        x = mx.nd.broadcast_add(mx.nd.take(w.tokens, tokens),                  # (B, S, D)
                                mx.nd.slice_axis(w.positions, axis=0, begin=0, end=seq))
        for bw in w.blocks:
            x = block(x, bw, self.heads, causal=True)                         # (B, S, D)
        x = layer_norm(x, w.final_norm)
        return mx.nd.broadcast_add(mx.nd.dot(x, w.output), w.output_bias)    # (B, S, V)
