"""Placements hold every position once; the causal mask's work per device, counted by
hand for K = 2 and 4: the plain placement's differ, zig-zag's are equal."""

import numpy as np
import pytest

from tutorial.sequence.placement import PLACEMENTS, causal_work, imbalance, pairs, place


@pytest.mark.parametrize("seq_len, k, placement, ranges", [
    (8, 2, "plain", [((0, 4),), ((4, 8),)]),
    (8, 4, "zigzag", [((0, 1), (7, 8)), ((1, 2), (6, 7)), ((2, 3), (5, 6)), ((3, 4), (4, 5))]),
    (10, 4, "plain", [((0, 3),), ((3, 6),), ((6, 8),), ((8, 10),)]),     # uneven: 3 3 2 2
    (7, 2, "zigzag", [((0, 2), (6, 7)), ((2, 4), (4, 6))]),              # chunks 2 2 2 1
    (3, 2, "zigzag", [((0, 1),), ((1, 2), (2, 3))]),                     # chunk 3 is empty
])
def test_ranges_hand_worked(seq_len, k, placement, ranges):
    assert [h.ranges for h in place(seq_len, k, placement)] == ranges


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("seq_len, k", [(1, 1), (5, 5), (7, 3), (16, 4), (13, 4), (9, 2)])
def test_every_position_is_held_exactly_once(seq_len, k, placement):
    held = place(seq_len, k, placement)
    everything = np.concatenate([h.positions for h in held])
    assert sorted(everything.tolist()) == list(range(seq_len))
    assert [h.device for h in held] == list(range(k))
    assert min(h.size for h in held) >= 1
    if placement == "plain" or seq_len % (2 * k) == 0:
        assert max(h.size for h in held) - min(h.size for h in held) <= 1


@pytest.mark.parametrize("seq_len, k, plain, zigzag", [
    (8, 2, [10, 26], [18, 18]),                      # 1+2+3+4, 5+6+7+8; 1+2+7+8, 3+4+5+6
    (8, 4, [3, 7, 11, 15], [9, 9, 9, 9]),            # 1+2, 3+4, ...; 1+8, 2+7, 3+6, 4+5
    (16, 4, [10, 26, 42, 58], [34, 34, 34, 34]),     # 1..4, 5..8, ...; 1+2+15+16, ...
])
def test_causal_work_hand_worked(seq_len, k, plain, zigzag):
    assert causal_work(place(seq_len, k, "plain")) == plain
    assert causal_work(place(seq_len, k, "zigzag")) == zigzag


@pytest.mark.parametrize("k", [2, 3, 4, 8])
@pytest.mark.parametrize("per_chunk", [1, 3])
def test_zigzag_balances_what_plain_does_not(k, per_chunk):
    seq_len = 2 * k * per_chunk
    plain, zigzag = (causal_work(place(seq_len, k, p)) for p in ("plain", "zigzag"))
    assert sum(plain) == sum(zigzag) == seq_len * (seq_len + 1) // 2
    assert len(set(zigzag)) == 1 and imbalance(zigzag) == 1.0
    assert plain == sorted(plain) and len(set(plain)) == k     # each device more than the last
    assert imbalance(plain) >= 1.4        # the last device: about (2K - 1) / K times the mean


def test_pairs_counts_like_brute_force():
    rng = np.random.default_rng(0)
    q, k = rng.permutation(12)[:5], rng.permutation(12)[:7]
    brute = sum(1 for i in q for j in k if j <= i)
    assert pairs(q, k) == brute
    assert pairs(q, k, causal=False) == 35
