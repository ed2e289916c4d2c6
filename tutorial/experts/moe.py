"""A mixture-of-experts layer on one device: route, run each expert on its tokens, combine.

The MLP of a transformer block replaced by E MLPs, the *experts* (Shazeer et al. 2017;
Fedus et al. 2021): each token is processed by the k experts the router picks
(:mod:`~tutorial.experts.gating`), and the layer's output is their gate-weighted sum:

    y[t] = sum over the kept choices c of token t:  weights[t, c] * expert_e(x[t])
    expert_e(x) = relu(x W1_e + b1_e) W2_e + b2_e        (the block's MLP, its own weights)

A choice dropped by capacity adds nothing (a token with every choice dropped gets 0: the
residual connection around the layer carries it on). Parameters grow with E while each
token still costs k MLPs. Each expert runs once, on the tokens it takes (gathered with
``take``), and the outputs are scattered back to their tokens with ``take`` again;
autograd goes through both. :func:`moe_reference` is the same layer in float64 NumPy,
token by token, the independent reference.

>>> w = init_moe(model_dim=4, hidden=8, num_experts=3, seed=0)
>>> x = np.random.default_rng(1).normal(size=(6, 4)).astype(np.float32)
>>> result = moe(mx.nd.array(x), to_nd(w), k=2, capacity_factor=None)
>>> result.output.shape, result.routing.dropped
((6, 4), 0)
>>> expected = moe_reference(x, w, k=2, capacity_factor=None)
>>> bool(np.abs(result.output.asnumpy() - expected).max() < 1e-4)
True
"""

from typing import NamedTuple, Tuple

import mxnet as mx
import numpy as np

from tutorial.experts.capacity import check_capacity_factor, check_k
from tutorial.experts.gating import Routing, gate_weights, route, router_probabilities
from tutorial.sequence.block import MLP, mlp, mlp_reference
from tutorial.validate import check_count


class MoEWeights(NamedTuple):
    """The router and the experts (NumPy arrays or NDArrays)."""
    router: object                 # (model_dim, experts)
    experts: Tuple[MLP, ...]       # expert e: first (model_dim, hidden), ... (as the block's MLP)


class MoEResult(NamedTuple):
    output: mx.nd.NDArray          # (tokens, model_dim)
    routing: Routing               # the router's decisions, as data
    probabilities: mx.nd.NDArray   # (tokens, experts), for the load-balancing loss


def init_moe(model_dim, hidden, num_experts, seed=0):
    """Random float32 NumPy weights: router ~ N(0, 1/model_dim), experts as the block's MLP."""
    d = check_count("model_dim", model_dim)
    h = check_count("hidden", hidden)
    n = check_count("num_experts", num_experts)
    rng = np.random.default_rng(seed)

    def normal(shape, scale):
        return (rng.normal(size=shape) * scale).astype(np.float32)

    return MoEWeights(normal((d, n), d ** -0.5), tuple(
        MLP(normal((d, h), d ** -0.5), normal(h, 0.1), normal((h, d), h ** -0.5),
            normal(d, 0.1)) for _ in range(n)))


def to_nd(weights, ctx=None):
    """The same weights as NDArrays on ``ctx`` (default: the current context)."""
    ctx = ctx or mx.current_context()
    return MoEWeights(mx.nd.array(weights.router, ctx=ctx), tuple(
        MLP(*(mx.nd.array(a, ctx=ctx) for a in expert)) for expert in weights.experts))


def check_weights(weights, model_dim):
    """A ValueError sentence unless router and experts fit tokens of ``model_dim``."""
    router = weights.router
    if len(router.shape) != 2 or router.shape[0] != model_dim:
        raise ValueError(f"weights.router must have shape ({model_dim}, experts) for "
                         f"model_dim={model_dim}, got {tuple(router.shape)}")
    if len(weights.experts) != router.shape[1]:
        raise ValueError(f"the router scores {router.shape[1]} experts but weights.experts "
                         f"holds {len(weights.experts)}: give one MLP per router column")
    for e, expert in enumerate(weights.experts):
        hidden = expert.first.shape[1] if len(expert.first.shape) == 2 else None
        expected = ((model_dim, hidden), (hidden,), (hidden, model_dim), (model_dim,))
        for name, array, shape in zip(MLP._fields, expert, expected):
            if tuple(array.shape) != shape:
                raise ValueError(f"weights.experts[{e}].{name} must have shape {shape} for "
                                 f"model_dim={model_dim}, got {tuple(array.shape)}")


def check_tokens(x):
    if len(x.shape) != 2 or 0 in x.shape:
        raise ValueError(f"x must have 2 axes (tokens, model_dim) and at least one token, "
                         f"got shape {tuple(x.shape)}: flatten (batch, seq) into tokens "
                         f"with x.reshape((-1, model_dim))")


def combine(rows, positions, gates, model_dim):
    """y[t] = sum_c gates[t, c] * rows[positions[t][c]]; a None position adds nothing.

    rows (assignments, model_dim) or None, gates (tokens, k): (tokens, model_dim).
    """
    tokens, k = gates.shape
    ctx = gates.context
    missing = 0 if rows is None else rows.shape[0]               # index of the zero row
    zero = mx.nd.zeros((1, model_dim), ctx=ctx, dtype=gates.dtype)
    padded = zero if rows is None else mx.nd.concat(rows, zero, dim=0)
    index = mx.nd.array([missing if p is None else p for row in positions for p in row],
                        ctx=ctx, dtype="int32")
    gathered = mx.nd.take(padded, index).reshape((tokens, k, model_dim))
    return mx.nd.broadcast_mul(gathered, gates.expand_dims(axis=2)).sum(axis=1)


def moe(x, weights, k=1, capacity_factor=1.0):
    """The layer on one device: x (tokens, model_dim) NDArray, weights NDArrays."""
    check_tokens(x)
    check_weights(weights, x.shape[1])
    check_k(k, len(weights.experts))
    check_capacity_factor(capacity_factor)
    probabilities = router_probabilities(x, weights.router)      # (tokens, experts)
    routing = route(probabilities, k, capacity_factor)
    gates = gate_weights(probabilities, routing.experts)         # (tokens, k)
    outputs, offsets, offset = [], [], 0
    for e, tokens in enumerate(routing.tokens):
        offsets.append(offset)
        if tokens:
            index = mx.nd.array(tokens, ctx=x.context, dtype="int32")
            outputs.append(mlp(mx.nd.take(x, index), weights.experts[e]))  # (taken, model_dim)
            offset += len(tokens)
    rows = outputs[0] if len(outputs) == 1 else mx.nd.concat(*outputs, dim=0)
    positions = [[None if s is None else offsets[e] + s for e, s in zip(chosen, slots)]
                 for chosen, slots in zip(routing.experts, routing.slots)]
    return MoEResult(combine(rows, positions, gates, x.shape[1]), routing, probabilities)


def moe_reference(x, weights, k=1, capacity_factor=1.0):
    """The same layer in float64 NumPy, token by token (x and weights NumPy arrays)."""
    x = np.asarray(x, dtype=np.float64)
    check_tokens(x)
    check_weights(weights, x.shape[1])
    logits = x @ np.asarray(weights.router, dtype=np.float64)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    routing = route(p / p.sum(axis=1, keepdims=True), k, capacity_factor)
    y = np.zeros_like(x)
    for t in range(len(x)):
        for e, w, slot in zip(routing.experts[t], routing.weights[t], routing.slots[t]):
            if slot is not None:
                y[t] += w * mlp_reference(x[t], weights.experts[e])
    return y
