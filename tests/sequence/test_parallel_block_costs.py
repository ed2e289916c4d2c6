"""The sequence collectives against NumPy, the bytes a block sends (tensor parallel equals
tensor + sequence parallel, from the ring's schedules, and by hand), the activations it
keeps (counted by hand, and measured in a fresh process)."""

import subprocess

import mxnet as mx
import numpy as np
import pytest

from tutorial.parallel.collectives import bytes_sent
from tutorial.sequence import parallel_block_memory
from tutorial.sequence.parallel_block_costs import bytes_per_block, kept_bytes
from tutorial.sequence.sequence_collectives import (all_gather_sequence, allreduce_sequence,
                                                    reduce_scatter_sequence, ring_plan,
                                                    sequence_shards)

SIZES = [(k, seq) for k in (1, 2, 3, 4) for seq in (4, 7, 9) if seq >= k]


def per_device(k, seq, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(2, seq, 3)).astype(np.float32) for _ in range(k)]


@pytest.mark.parametrize("k, seq", SIZES)
def test_the_sequence_collectives_equal_numpy(k, seq):
    arrays = per_device(k, seq, seed=k + seq)
    nd = [mx.nd.array(a, ctx=mx.cpu(d)) for d, a in enumerate(arrays)]
    total, shards = sum(arrays), sequence_shards(seq, k)
    sent = [0] * k
    for d, s in enumerate(allreduce_sequence(nd, sent)):
        assert s.context == mx.cpu(d)
        np.testing.assert_allclose(s.asnumpy(), total, rtol=1e-6, atol=1e-6)
    pieces = reduce_scatter_sequence(nd, sent)
    for p, s in zip(pieces, shards):
        np.testing.assert_allclose(p.asnumpy(), total[:, s.start:s.stop], rtol=1e-6, atol=1e-6)
    for d, full in enumerate(all_gather_sequence(pieces, sent)):
        assert full.context == mx.cpu(d)
        np.testing.assert_allclose(full.asnumpy(), total, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(nd[0].asnumpy(), arrays[0])       # inputs untouched
    assert sent == [2 * b for b in bytes_sent(ring_plan(k, seq, 2 * 3))]


@pytest.mark.parametrize("k, seq", SIZES)
def test_an_allreduce_is_its_reduce_scatter_then_its_all_gather(k, seq):
    ring = ring_plan(k, seq, 6)
    halves = [ring_plan(k, seq, 6, name=n) for n in ("reduce-scatter", "all-gather")]
    assert ring.steps == halves[0].steps + halves[1].steps
    assert all(a % 6 == 0 and b % 6 == 0 for a, b in ring.chunks)     # whole positions
    counted = bytes_per_block(2, seq, 3, k)
    assert counted.tensor_parallel == counted.sequence_parallel
    assert counted.tensor_parallel == [4 * b for b in bytes_sent(ring)]
    assert counted.tensor_parallel == [4 * (a + b) for a, b in
                                       zip(*(bytes_sent(h) for h in halves))]


def test_the_chunks_are_whole_positions():
    plan = ring_plan(3, seq=7, position_elements=6)
    assert plan.chunks == ((0, 18), (18, 30), (30, 42))        # positions 0:3, 3:5, 5:7
    assert plan.length == 42 and plan.itemsize == 4


def test_bytes_per_block_hand_worked():
    # 1 x 2 numbers x 4 bytes = 8 bytes a position; 4 positions on 3 devices in chunks of
    # 2, 1, 1: device 0 sends chunks 0, 2 and 1, 0 (3 + 3 positions), device 1 chunks 1, 0
    # and 2, 1 (3 + 2), device 2 chunks 2, 1 and 0, 2 (2 + 3); four allreduces per step
    b = bytes_per_block(batch=1, seq=4, model_dim=2, devices=3)
    assert b.tensor_parallel == b.sequence_parallel == [4 * 6 * 8, 4 * 5 * 8, 4 * 5 * 8]
    # replicated weights: 5 x 2 = 10 numbers in chunks of 4, 3, 3: device 0 sends chunks
    # 0, 2 and 1, 0 (14 numbers), device 1 chunks 1, 0 and 2, 1 (13), device 2 (13)
    assert b.replicated_gradients == [14 * 4, 13 * 4, 13 * 4]


def test_kept_activations_hand_worked():
    # batch 1, seq 4, model_dim 4, 2 heads of 2 on 2 devices, hidden 6: device 0 holds
    # 1 head (2 features) and 3 units. Numbers kept: LayerNorms 4 x 4 positions x 4,
    # gathered 2 x 16, heads 4 x 4 x 2, scores 3 x 1 x 4 x 4, hidden 4 x 3
    tensor = kept_bytes(1, 4, 4, 2, 6, devices=2, sequence_parallel=False)
    assert tensor == [4 * (64 + 32 + 32 + 48 + 12)] * 2
    sequence = kept_bytes(1, 4, 4, 2, 6, devices=2, sequence_parallel=True)
    assert sequence == [4 * (32 + 32 + 32 + 48 + 12)] * 2          # 2 positions each
    causal = kept_bytes(1, 4, 4, 2, 6, devices=2, sequence_parallel=True, causal=True)
    assert [c - s for c, s in zip(causal, sequence)] == [4 * 16] * 2   # the mask


def test_the_count_falls_with_sequence_parallelism_at_the_reports_size():
    dims = (8, 128, 256, 8, 1024)
    for k in (2, 4):
        tensor, sequence = (kept_bytes(*dims, k, mode) for mode in (False, True))
        assert [t - s for t, s in zip(tensor, sequence)] == [4 * 4 * 8 * 128 * 256 * (k - 1)
                                                             // k] * k


def test_the_measured_activations_agree_with_the_count_and_fall():
    got = parallel_block_memory.kept_measured(8, 128, 256, 8, 1024, devices=4, causal=True)
    for mode, kept in got.items():     # the count leaves out arrays of one number a position
        assert kept.within(0.03), (mode, kept)
    assert got["sequence"].measured < got["tensor"].measured - 0.5 * (
        got["tensor"].counted - got["sequence"].counted)


def test_a_failed_measurement_says_so_in_a_sentence(monkeypatch):
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(
        a, 1, "", "Traceback\nMXNetError: out of memory"))
    with pytest.raises(RuntimeError, match=r"the measuring process failed \(exit code 1\): "
                                           r"MXNetError: out of memory"):
        parallel_block_memory.kept_measured(2, 4, 4, 2, 8, devices=2)


@pytest.mark.parametrize("call, message", [
    (lambda: bytes_per_block(2, 3, 4, devices=4), "devices=4 exceeds seq=3"),
    (lambda: bytes_per_block(0, 3, 4, devices=2), "batch must be a whole number >= 1"),
    (lambda: kept_bytes(2, 3, 4, 4, 8, devices=4, sequence_parallel=True),
     "devices=4 exceeds seq=3"),
    (lambda: kept_bytes(2, 8, 4, 2, 8, devices=4, sequence_parallel=False),
     "devices=4 exceeds heads=2"),
    (lambda: parallel_block_memory.kept_measured(2, 8, 4, 2, 8, devices=3),
     "devices=3 exceeds heads=2"),
    (lambda: ring_plan(2, 4, 0), "position_elements must be a whole number >= 1"),
])
def test_impossible_sizes_are_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()
