"""Top-k softmax gating: the router sends each token to its k best experts, as data.

Shazeer et al. 2017 ("Outrageously large neural networks"): a router scores every expert
for every token and each token goes to its k best. Switch Transformer (Fedus et al. 2021)
uses k = 1, GShard (Lepikhin et al. 2020) k = 2. For tokens x (tokens, model_dim):

    probabilities = softmax(x @ W_g)                  (tokens, experts)
    experts[t]    = the k largest of probabilities[t], best first (a tie: the lower index)
    weights[t]    = probabilities[t, experts[t]]                        k = 1 (Switch)
                  = the same divided by their sum, so that they add to 1  k > 1 (GShard)

With k = 1 the raw probability is kept: renormalised it would always be 1, and the
router would get no gradient from the layer's output. Each expert then takes at most
``capacity`` assignments (:mod:`~tutorial.experts.capacity`); the rest are dropped.

Load balancing (Switch, eq. 4): ``alpha * E * sum_e f_e * P_e``, where f_e is the fraction
of the tokens x k assignments that chose expert e (before capacity drops; with k = 1
Switch's fraction of tokens) and P_e the mean router probability of e. Only P carries a
gradient. It equals alpha when either f or P is uniform, and grows as both pile up on the
same experts.

Six tokens, three experts, k = 1, capacity factor 1 (capacity 2): tokens 3 and 5 are dropped.

>>> p = np.array([[.6, .3, .1], [.5, .4, .1], [.2, .7, .1],
...               [.8, .1, .1], [.1, .2, .7], [.4, .3, .3]])
>>> r = route(p, k=1, capacity_factor=1.0)
>>> r.experts
((0,), (0,), (1,), (0,), (2,), (0,))
>>> r.slots, r.dropped
(((0,), (1,), (0,), (None,), (0,), (None,)), 2)
>>> r.tokens                      # per expert, in slot order
((0, 1), (2,), (4,))
>>> round(load_balancing_reference(p, r, alpha=1.0), 4)    # 3 (4/6 .433 + 1/6 .333 + 1/6 .233)
1.15
"""

import dataclasses
from typing import Optional, Tuple

import mxnet as mx
import numpy as np

from tutorial.experts.capacity import assign_slots, check_k, expert_capacity
from tutorial.validate import as_host_array, check_range


@dataclasses.dataclass(frozen=True)
class Routing:
    """Where every token goes: the router's decisions, before and after capacity."""
    num_experts: int
    k: int
    capacity_factor: Optional[float]        # None: no limit
    capacity: int                           # assignments an expert takes at most
    experts: Tuple[Tuple[int, ...], ...]    # per token: its k experts, best first
    weights: Tuple[Tuple[float, ...], ...]  # per token: their gate weights (for display)
    slots: Tuple[Tuple[Optional[int], ...], ...]   # per token and choice: slot, None: dropped
    tokens: Tuple[Tuple[int, ...], ...]     # per expert: the tokens it takes, in slot order

    @property
    def num_tokens(self):
        return len(self.experts)

    @property
    def requested(self):
        """Per expert: how many tokens chose it (before capacity)."""
        return tuple(sum(e in row for row in self.experts) for e in range(self.num_experts))

    @property
    def kept(self):
        """Per expert: how many tokens it takes (at most ``capacity``)."""
        return tuple(len(t) for t in self.tokens)

    @property
    def dropped(self):
        """Token-expert assignments dropped by capacity."""
        return sum(s is None for row in self.slots for s in row)


def check_rows(name, array, what):
    if len(array.shape) != 2 or 0 in array.shape:
        raise ValueError(f"{name} must have 2 axes {what} and no empty axis, got shape "
                         f"{tuple(array.shape)}")


def router_probabilities(x, router):
    """softmax(x @ router): x (tokens, model_dim), router (model_dim, experts), NDArrays."""
    check_rows("x", x, "(tokens, model_dim)")
    check_rows("router", router, "(model_dim, experts)")
    if x.shape[1] != router.shape[0]:
        raise ValueError(f"x has model_dim {x.shape[1]} but router {router.shape[0]} rows: "
                         f"the router must have shape ({x.shape[1]}, experts)")
    return mx.nd.softmax(mx.nd.dot(x, router), axis=-1)        # (tokens, experts)


def choose_experts(probabilities, k):
    """Per token, its k most probable experts, best first (a tie goes to the lower index)."""
    order = np.argsort(-probabilities, axis=1, kind="stable")[:, :k]
    return tuple(tuple(int(e) for e in row) for row in order)


def route(probabilities, k=1, capacity_factor=1.0):
    """The :class:`Routing` of ``probabilities`` (tokens, experts; NumPy or NDArray)."""
    p = np.asarray(as_host_array(probabilities), dtype=np.float64)
    check_rows("probabilities", p, "(tokens, experts)")
    if not np.isfinite(p).all():
        raise ValueError("probabilities hold NaN or an infinity: the router diverged; check "
                         "its input and weights")
    sums = p.sum(axis=1)
    if (p < 0).any() or not np.allclose(sums, 1.0, atol=1e-3):
        t = int(np.argmax((p < 0).any(axis=1) | ~np.isclose(sums, 1.0, atol=1e-3)))
        raise ValueError(f"probabilities must be a softmax, each token's row non-negative and "
                         f"summing to 1; token {t}'s row sums to {sums[t]:.4g} (least entry "
                         f"{p[t].min():.4g}). Route softmax(x @ router) "
                         f"(router_probabilities), not the raw scores")
    num_tokens, num_experts = p.shape
    k = check_k(k, num_experts)
    capacity = expert_capacity(num_tokens, num_experts, k, capacity_factor)
    experts = choose_experts(p, k)
    picked = np.take_along_axis(p, np.array(experts), axis=1)      # (tokens, k)
    if k > 1:
        picked = picked / picked.sum(axis=1, keepdims=True)
    slots, tokens = assign_slots(experts, num_experts, capacity)
    return Routing(num_experts, k, None if capacity_factor is None else float(capacity_factor),
                   capacity, experts, tuple(tuple(float(w) for w in row) for row in picked),
                   slots, tokens)


def gate_weights(probabilities, experts):
    """The gate weights (tokens, k) as an NDArray, differentiable through
    ``probabilities``: picked at each token's ``experts``, renormalised when k > 1."""
    experts = np.asarray(experts)
    if experts.ndim != 2 or experts.shape[0] != probabilities.shape[0]:
        raise ValueError(f"experts must list k experts for each of the "
                         f"{probabilities.shape[0]} tokens, got shape {experts.shape}")
    ctx = probabilities.context
    picked = mx.nd.stack(*[mx.nd.pick(probabilities, mx.nd.array(experts[:, c], ctx=ctx),
                                      axis=1) for c in range(experts.shape[1])], axis=1)
    if experts.shape[1] == 1:
        return picked                                            # (tokens, 1)
    return mx.nd.broadcast_div(picked, picked.sum(axis=1, keepdims=True))   # (tokens, k)


def assignment_fractions(routing):
    """f_e: the fraction of the tokens x k assignments that chose expert e (before drops)."""
    return np.array(routing.requested, dtype=np.float64) / (routing.num_tokens * routing.k)


def load_balancing_loss(probabilities, routing, alpha=0.01):
    """alpha * E * sum_e f_e * P_e as a 1-element NDArray, differentiable through P."""
    alpha = check_range("alpha", alpha, 0.0)
    if tuple(probabilities.shape) != (routing.num_tokens, routing.num_experts):
        raise ValueError(f"probabilities have shape {tuple(probabilities.shape)} but the "
                         f"routing is of {routing.num_tokens} tokens and "
                         f"{routing.num_experts} experts")
    f = mx.nd.array(assignment_fractions(routing), ctx=probabilities.context,
                    dtype=probabilities.dtype)
    mean_probability = probabilities.mean(axis=0)                # P: (experts,)
    return alpha * routing.num_experts * (f * mean_probability).sum()


def load_balancing_reference(probabilities, routing, alpha=0.01):
    """The same loss in float64 NumPy (a float)."""
    p = np.asarray(as_host_array(probabilities), dtype=np.float64)
    return float(alpha * routing.num_experts *
                 (assignment_fractions(routing) * p.mean(axis=0)).sum())
