"""Top-k gating and capacity: hand-worked tables, slots against GShard's cumulative-sum
formulation (an independent NumPy reference), gate weights and the load-balancing loss
with its gradient."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd

from tutorial.experts.capacity import dropped_fractions, expert_capacity
from tutorial.experts.gating import (gate_weights, load_balancing_loss,
                                     load_balancing_reference, route, router_probabilities)

SIX = np.array([[.6, .3, .1], [.5, .4, .1], [.2, .7, .1],
                [.8, .1, .1], [.1, .2, .7], [.4, .3, .3]])


def random_probabilities(tokens, experts, seed, skew=1.5):
    logits = np.random.default_rng(seed).normal(size=(tokens, experts)) * skew
    logits[:, 0] += 1.0                          # a favourite expert, so that some overflow
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True)


def gshard_slots(p, k, capacity):
    """Slots by GShard's dense formulation: per choice rank, a one-hot mask, its cumulative
    sum over tokens (position in the expert), shifted by what earlier ranks took."""
    order = np.argsort(-p, axis=1, kind="stable")
    taken = np.zeros(p.shape[1], dtype=int)
    slots = np.full((len(p), k), -1)
    for rank in range(k):
        mask = np.eye(p.shape[1], dtype=int)[order[:, rank]]        # (tokens, experts)
        position = np.cumsum(mask, axis=0) - 1 + taken              # before capacity
        keep = mask * (position < capacity)
        slots[:, rank] = np.where(keep.sum(axis=1) > 0, (position * keep).sum(axis=1), -1)
        taken += keep.sum(axis=0)
    return slots


def test_six_tokens_three_experts_top1_by_hand():
    r = route(SIX, k=1, capacity_factor=1.0)
    assert r.capacity == 2
    assert r.requested == (4, 1, 1) and r.kept == (2, 1, 1) and r.dropped == 2
    assert [t for t, s in enumerate(r.slots) if s[0] is None] == [3, 5]   # last in line
    assert r.weights == ((.6,), (.5,), (.7,), (.8,), (.7,), (.4,))        # raw, not 1


def test_six_tokens_top2_first_choices_come_first():
    # capacity ceil(0.5 * 6 * 2 / 3) = 2; first choices 0,0,1,0,2,0 take expert 0's two
    # slots (tokens 0, 1), expert 1's first (token 2), expert 2's first (token 4); then
    # second choices 1,1,0,1,1,1 (token 5: .3 = .3, the lower index) in token order:
    # token 0 takes expert 1's last slot, everybody else finds theirs full.
    r = route(SIX, k=2, capacity_factor=0.5)
    assert r.capacity == 2
    assert r.experts == ((0, 1), (0, 1), (1, 0), (0, 1), (2, 1), (0, 1))
    assert r.slots == ((0, 1), (1, None), (0, None), (None, None), (0, None), (None, None))
    assert r.tokens == ((0, 1), (2, 0), (4,))
    assert r.dropped == 7
    np.testing.assert_allclose(r.weights[0], (.6 / .9, .3 / .9))            # renormalised


def test_no_limit_drops_nothing():
    r = route(random_probabilities(20, 4, seed=0), k=2, capacity_factor=None)
    assert r.capacity == 20 and r.dropped == 0 and r.kept == r.requested


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("capacity_factor", [0.3, 0.75, 1.0, 1.25, 2.0])
def test_slots_equal_gshards_cumulative_sums(k, capacity_factor):
    p = random_probabilities(17, 5, seed=k)
    r = route(p, k, capacity_factor)
    ours = np.array([[-1 if s is None else s for s in row] for row in r.slots])
    np.testing.assert_array_equal(ours, gshard_slots(p, k, r.capacity))
    assert all(len(tokens) <= r.capacity for tokens in r.tokens)
    for e, tokens in enumerate(r.tokens):               # slot order, consistent both ways
        assert [r.slots[t][r.experts[t].index(e)] for t in tokens] == list(range(len(tokens)))


@pytest.mark.parametrize("tokens, experts, k, factor, expected", [
    (6, 3, 1, 1.0, 2), (6, 3, 2, 1.0, 4), (10, 4, 1, 1.25, 4), (10, 11, 1, 1.1, 1),
    (7, 2, 2, 0.01, 1), (5, 5, 1, None, 5)])
def test_capacity_formula(tokens, experts, k, factor, expected):
    assert expert_capacity(tokens, experts, k, factor) == expected


def test_dropped_fractions_fall_with_the_factor():
    r = route(random_probabilities(40, 4, seed=3), k=2)
    fractions = dropped_fractions(r, [0.25, 0.5, 1.0, 1.5, 4.0, None])
    assert all(a >= b for a, b in zip(fractions, fractions[1:]))
    assert fractions[0] > 0.4 and fractions[-2:] == (0.0, 0.0)
    assert fractions[1] == route(random_probabilities(40, 4, seed=3), 2, 0.5).dropped / 80


@pytest.mark.parametrize("k", [1, 2, 3])
def test_gate_weights_pick_and_renormalise_with_their_gradient(k):
    p_np = random_probabilities(7, 4, seed=5).astype(np.float32)
    r = route(p_np, k)
    head = np.random.default_rng(0).normal(size=(7, k))
    p = mx.nd.array(p_np)
    p.attach_grad()
    with autograd.record():
        gates = gate_weights(p, r.experts)
        (gates * mx.nd.array(head)).sum().backward()
    np.testing.assert_allclose(gates.asnumpy(), np.array(r.weights), rtol=1e-6)
    chosen = np.array(r.experts)
    picked = np.take_along_axis(p_np.astype(np.float64), chosen, axis=1)
    expected = np.zeros((7, 4))
    total = picked.sum(axis=1, keepdims=True) if k > 1 else np.ones((7, 1))
    inner = (head * picked).sum(axis=1, keepdims=True) / total ** 2 if k > 1 else 0
    np.put_along_axis(expected, chosen, head / total - inner, axis=1)   # d(p_c / S) / dp
    np.testing.assert_allclose(p.grad.asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_load_balancing_is_alpha_when_probabilities_or_assignments_are_uniform():
    x = mx.nd.array(np.random.default_rng(0).normal(size=(8, 5)))
    uniform = router_probabilities(x, mx.nd.zeros((5, 4)))       # every probability 1/4
    r = route(uniform, k=1)                                      # ties: all to expert 0
    assert r.requested == (8, 0, 0, 0)
    assert load_balancing_loss(uniform, r, alpha=0.01).asscalar() == pytest.approx(0.01)
    p = random_probabilities(8, 4, seed=1)
    balanced = route(np.eye(4)[np.arange(8) % 4] * .5 + .125, k=1)   # token t: expert t % 4
    assert balanced.requested == (2, 2, 2, 2)
    assert load_balancing_reference(p, balanced, alpha=0.3) == pytest.approx(0.3)
    skewed = route(p, k=1)
    assert load_balancing_reference(p, skewed, alpha=1.0) > 1.0     # both on expert 0


@pytest.mark.parametrize("k", [1, 2])
def test_load_balancing_gradient_against_finite_differences(k):
    rng = np.random.default_rng(k)
    x_np, w_np = rng.normal(size=(9, 3)), rng.normal(size=(3, 4))
    x, w = mx.nd.array(x_np, dtype="float64"), mx.nd.array(w_np, dtype="float64")
    w.attach_grad()
    with autograd.record():
        p = router_probabilities(x, w)
        r = route(p, k)
        loss = load_balancing_loss(p, r, alpha=0.5)
    loss.backward()

    def reference(weights):                                      # routing held fixed
        logits = x_np @ weights
        q = np.exp(logits - logits.max(axis=1, keepdims=True))
        return load_balancing_reference(q / q.sum(axis=1, keepdims=True), r, alpha=0.5)

    assert loss.asscalar() == pytest.approx(reference(w_np), rel=1e-10)
    numeric = np.zeros_like(w_np)
    for i, j in np.ndindex(*w_np.shape):
        step = np.zeros_like(w_np)
        step[i, j] = 1e-6
        numeric[i, j] = (reference(w_np + step) - reference(w_np - step)) / 2e-6
    np.testing.assert_allclose(w.grad.asnumpy(), numeric, rtol=1e-5, atol=1e-8)
