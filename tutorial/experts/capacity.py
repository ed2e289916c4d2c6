"""Expert capacity: how many tokens an expert takes, and which tokens are dropped.

Experts run as fixed-size batches, so each takes at most (Fedus et al. 2021, "Switch
Transformers", eq. 3; Lepikhin et al. 2020, "GShard")

    capacity = ceil(capacity_factor * tokens * k / experts)

token-expert assignments. With a perfectly even router, factor 1 fits every
assignment; a skewed router overflows its favourite experts, and the assignments beyond
an expert's capacity are *dropped*: that expert does not see the token (the layer's
output for it is zero there, and the residual connection around the layer carries the
token on unchanged).

Who is dropped is decided in priority order, as in GShard: every token's first choice, in
token order, then every token's second choice, in token order, and so on. With k = 1 this
is plain token order: the last tokens to ask for a full expert lose out. Six tokens,
three experts, factor 1: capacity 2, and tokens 3 and 5 find expert 0 full:

>>> expert_capacity(6, 3, k=1, capacity_factor=1.0)
2
>>> slots, tokens = assign_slots([[0], [0], [1], [0], [2], [0]], num_experts=3, capacity=2)
>>> slots
((0,), (1,), (0,), (None,), (0,), (None,))
>>> tokens
((0, 1), (2,), (4,))
"""

import math

from tutorial.validate import check_count, is_number


def check_capacity_factor(capacity_factor):
    """``capacity_factor`` as a float > 0, or None (no limit: nothing is ever dropped)."""
    if capacity_factor is None:
        return None
    if not is_number(capacity_factor) or not math.isfinite(float(capacity_factor)) \
            or capacity_factor <= 0:
        raise ValueError(f"capacity_factor={capacity_factor!r} is out of range: use a "
                         f"finite number > 0 (1.0 fits an even router's tokens exactly; "
                         f"1.25 is common), or None for no limit")
    return float(capacity_factor)


def check_k(k, num_experts):
    """``k`` as an int if 1 <= k <= num_experts."""
    k = check_count("k", k, what="experts per token")
    if k > num_experts:
        raise ValueError(f"k={k} is larger than the {num_experts} experts: a token can "
                         f"choose at most every expert once, so use k <= {num_experts}")
    return k


def expert_capacity(num_tokens, num_experts, k=1, capacity_factor=1.0):
    """ceil(capacity_factor * tokens * k / experts); ``None`` gives ``num_tokens`` (a token
    picks an expert at most once, so no expert ever overflows)."""
    num_tokens = check_count("num_tokens", num_tokens)
    num_experts = check_count("num_experts", num_experts)
    k = check_k(k, num_experts)
    capacity_factor = check_capacity_factor(capacity_factor)
    if capacity_factor is None:
        return num_tokens
    # rounded first, so that float noise (1.1 * 10 / 11 = 1.0000000000000002) adds no slot;
    # at least 1, so that a tiny factor still lets every expert take a token
    return max(1, math.ceil(round(capacity_factor * num_tokens * k / num_experts, 9)))


def assign_slots(choices, num_experts, capacity):
    """Slots in each expert's batch, in priority order (choice rank, then token order).

    ``choices[t]``: token t's experts, best first. Returns ``(slots, tokens)``:
    ``slots[t][c]`` is the slot of token t's c-th choice in that expert's batch, or None
    when it is dropped; ``tokens[e]`` lists the tokens expert e takes, in slot order.
    """
    capacity = check_count("capacity", capacity)
    taken = [[] for _ in range(num_experts)]
    slots = [[None] * len(row) for row in choices]
    for rank in range(max((len(row) for row in choices), default=0)):
        for t, row in enumerate(choices):
            e = row[rank]
            if len(taken[e]) < capacity:
                slots[t][rank] = len(taken[e])
                taken[e].append(t)
    return tuple(map(tuple, slots)), tuple(map(tuple, taken))


def dropped_fraction(choices, num_experts, capacity_factor):
    """The fraction of the token-expert assignments of ``choices`` that capacity drops."""
    k = len(choices[0])
    capacity = expert_capacity(len(choices), num_experts, k, capacity_factor)
    slots, _ = assign_slots(choices, num_experts, capacity)
    return sum(s is None for row in slots for s in row) / (len(choices) * k)


def dropped_fractions(routing, capacity_factors):
    """What each capacity factor drops: for the experts ``routing`` chose (before any
    drop), the fraction of token-expert assignments beyond capacity, one per factor.

    >>> from types import SimpleNamespace
    >>> routing = SimpleNamespace(experts=((0,), (0,), (1,), (0,), (2,), (0,)), num_experts=3)
    >>> dropped_fractions(routing, [0.5, 1.0, 2.0, None])
    (0.5, 0.3333333333333333, 0.0, 0.0)
    """
    if isinstance(capacity_factors, (str, bytes)) or not hasattr(capacity_factors, "__iter__"):
        raise TypeError(f"capacity_factors must be a list of numbers (or None), got "
                        f"{capacity_factors!r}; for one factor write [{capacity_factors!r}]")
    factors = [check_capacity_factor(f) for f in capacity_factors]
    return tuple(dropped_fraction(routing.experts, routing.num_experts, f) for f in factors)
