"""Ring attention's schedule: who holds which block when, the masks, the bytes each device
sends (hand-worked), and its work against the placement's count."""

import pytest

from tutorial.sequence.placement import PLACEMENTS, causal_work, place
from tutorial.sequence.ring_schedule import (FULLY, PARTLY, UNMASKED, bytes_sent, computed,
                                             critical_path, kv_bytes_per_position, schedule,
                                             work)


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("seq_len, k", [(1, 1), (8, 2), (9, 3), (16, 4), (10, 4)])
def test_every_device_sees_every_block_once_passed_around_the_ring(seq_len, k, placement):
    plan = schedule(seq_len, k, causal=True, placement=placement)
    assert len(plan.steps) == k
    for s, step in enumerate(plan.steps):
        assert [w.device for w in step] == list(range(k))
        assert [w.block for w in step] == [(d - s) % k for d in range(k)]
        for w in step:              # what d sends now, d + 1 holds at the next step
            if s < k - 1:
                assert w.sends_to == (w.device + 1) % k
                assert plan.steps[s + 1][w.sends_to].block == w.block
            else:
                assert (w.sends_to, w.nbytes) == (None, 0)
    for d in range(k):
        assert sorted(step[d].block for step in plan.steps) == list(range(k))


def test_bytes_sent_are_k_minus_1_blocks_hand_worked():
    # batch 2, heads 3, head_dim 4, float32: a key and a value per position = 2*2*3*4*4 = 192
    # bytes; 8 positions on 4 devices: blocks of 2 positions, 384 bytes, sent 3 times
    size = kv_bytes_per_position(2, 3, 4, itemsize=4)
    assert size == 192
    assert bytes_sent(schedule(8, 4, position_bytes=size)) == [3 * 384] * 4
    assert bytes_sent(schedule(8, 1, position_bytes=size)) == [0]


def test_bytes_sent_with_uneven_blocks_hand_worked():
    # 10 positions on 4 devices: blocks of 3, 3, 2, 2; device d sends every block except
    # the one it receives last, (d + 1) mod 4: 3+2+2, 3+3+2, 2+3+3, 2+2+3
    assert bytes_sent(schedule(10, 4, position_bytes=1)) == [7, 8, 8, 7]


def test_causal_masks_of_the_plain_placement_hand_worked():
    # three devices; device d's queries come after block b's keys when b < d
    plan = schedule(6, 3, causal=True)
    kinds = {(w.device, w.block): w.mask for step in plan.steps for w in step}
    assert kinds == {(d, b): UNMASKED if b < d else PARTLY if b == d else FULLY
                     for d in range(3) for b in range(3)}
    assert [w.pairs for w in plan.steps[0]] == [3, 3, 3]      # each diagonal: 1 + 2
    assert [w.pairs for w in plan.steps[1]] == [0, 4, 4]      # 2 x 2 or nothing
    assert all(w.mask == UNMASKED for step in schedule(6, 3).steps for w in step)


def test_zigzag_blocks_are_never_fully_masked():
    plan = schedule(16, 4, causal=True, placement="zigzag")
    assert all(w.mask == PARTLY for w in plan.steps[0])
    assert {w.pairs for step in plan.steps[1:] for w in step} == {8}   # 2 chunk pairs x 2 x 2


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("seq_len, k", [(8, 2), (16, 4), (10, 4), (7, 3), (12, 1)])
def test_work_equals_the_placements_count(seq_len, k, placement):
    plan = schedule(seq_len, k, causal=True, placement=placement)
    assert work(plan) == causal_work(place(seq_len, k, placement))
    assert work(schedule(seq_len, k, placement=placement)) == [
        h.size * seq_len for h in place(seq_len, k, placement)]


def test_critical_path_hand_worked():
    # 16 positions, 4 devices. Plain: step 0 every diagonal has 1+2+3+4 = 10 pairs, then
    # device 3 computes a full 4 x 4 block at each of 3 steps: 10 + 3 x 16 = 58.
    # Zig-zag: 10 at step 0, then 8 on every device: 10 + 3 x 8 = 34 = 136 / 4, balanced.
    assert critical_path(schedule(16, 4, causal=True)) == 58
    assert critical_path(schedule(16, 4, causal=True, placement="zigzag")) == 34
    assert critical_path(schedule(16, 4)) == 4 * 16


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_tiles_computed_hand_count(k):
    # chunks of c positions: plain device d computes d + 1 blocks of (2c)^2 pairs; zig-zag
    # every device 3 tiles of c^2 on its own block and 2 on each of the K - 1 others
    c = 3
    plain = schedule(2 * k * c, k, causal=True, placement="plain")
    zigzag = schedule(2 * k * c, k, causal=True, placement="zigzag")
    assert computed(plain) == [4 * (d + 1) * c * c for d in range(k)]
    assert computed(zigzag) == [(2 * k + 1) * c * c] * k
    assert computed(schedule(2 * k * c, k, causal=False)) == [2 * k * c * 2 * c] * k
    for step in zigzag.steps:
        for w in step:
            assert sum(t.area for t in w.tiles) >= w.pairs   # a tile computes its masked pairs too
            assert all(t.mask in ("unmasked", "partly masked") for t in w.tiles)
