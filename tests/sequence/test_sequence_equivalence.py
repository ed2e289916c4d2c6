"""The notebook's checks against one device find agreement, and find a fault when there is one."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.sequence import equivalence, ring_attention, tensor_parallel_block
from tutorial.sequence.block import init_block


def devices(k):
    return [mx.cpu(i) for i in range(k)]


def qkv(seq=12):
    return [np.random.default_rng(i).normal(size=(1, 2, seq, 4)).astype(np.float32)
            for i in range(3)]


@pytest.mark.parametrize("placement", ["plain", "zigzag"])
def test_ring_agrees_and_reports_its_bytes(placement):
    e = equivalence.ring_errors(qkv(), devices(3), causal=True, placement=placement)
    assert e.output < 1e-5 and e.gradients < 1e-5
    # twice a block of 4 positions, each batch 1 x heads 2 x (k 4 + v 4) float32 numbers
    assert e.sent == [2 * 4 * (1 * 2 * (4 + 4) * 4)] * 3


def test_ring_errors_see_a_wrong_mask(monkeypatch):
    real = ring_attention.ring_attention
    monkeypatch.setattr(ring_attention, "ring_attention",
                        lambda q, k, v, causal=False, placement="plain":
                        real(q, k, v, False, placement))
    e = equivalence.ring_errors(qkv(), devices(2), causal=True)
    assert e.output > 1e-2


@pytest.mark.parametrize("sequence_parallel", [False, True])
def test_block_agrees(sequence_parallel):
    w = init_block(12, 3, 10, seed=0)
    x = np.random.default_rng(1).normal(size=(2, 7, 12)).astype(np.float32)
    e = equivalence.block_errors(w, x, 3, devices(2), causal=True,
                                 sequence_parallel=sequence_parallel)
    assert e.output < 1e-5 and e.gradients < 1e-5 and len(e.sent) == 2


def test_block_errors_see_a_lost_gradient(monkeypatch):
    real = tensor_parallel_block.gradients

    def halved(shards):
        grads = real(shards)
        grads[0].mlp.first[:] *= 0.5          # device 0's W1 gradient halved
        return grads

    monkeypatch.setattr(tensor_parallel_block, "gradients",
                        lambda shards: halved(shards) if len(shards) > 1 else real(shards))
    w = init_block(12, 3, 10, seed=0)
    x = np.random.default_rng(1).normal(size=(2, 7, 12)).astype(np.float32)
    e = equivalence.block_errors(w, x, 3, devices(2))
    assert e.output < 1e-5 and e.gradients > 0.1
