"""Memory against sequence length: the count of what autograd keeps (by kind, from the
step's tape), its replay, and the kernel's measurement of a real step beside it."""

import json

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd

from tutorial.memory.resident import Resident
from tutorial.sequence.block import block, init_block, to_nd
from tutorial.sequence import length_memory
from tutorial.sequence.length_memory import (ITEMSIZE, Model, kept, kept_per_block, measure,
                                             peak)
from tutorial.sequence.step_tape import block_ops, tape, walk

needs_kernel = pytest.mark.skipif(Resident().why_not is not None,
                                  reason=str(Resident().why_not))

MODEL = Model(batch=4, seq=64, model_dim=256, heads=4, hidden=1024, blocks=2, vocab=256)


@pytest.mark.parametrize("seq", [8, 64, 100])
def test_doubling_seq_quadruples_the_scores_and_doubles_the_rest(seq):
    short, long = (kept_per_block(MODEL._replace(seq=s)) for s in (seq, 2 * seq))
    assert long.scores == 4 * short.scores
    assert long.tokens == 2 * short.tokens
    assert long.weights == short.weights


def test_the_block_keeps_four_score_arrays_and_eleven_wide_rows_by_hand():
    b, s, d, h, hid = 3, 10, 8, 2, 20
    k = kept_per_block(Model(b, s, d, h, hid, blocks=1, vocab=5))
    assert k.scores == ITEMSIZE * 4 * b * h * s * s
    assert k.tokens == ITEMSIZE * (10 * b * s * d + b * s * hid + 2 * b * s + 2 * b * h * s)
    assert k.weights == ITEMSIZE * (4 * d * d + 2 * d * hid + hid + 5 * d)


def test_the_scores_take_over_past_the_stated_length():
    # (10 model_dim + hidden) / (4 heads) = 224 for MODEL
    assert kept_per_block(MODEL._replace(seq=200)).scores < \
        kept_per_block(MODEL._replace(seq=200)).tokens
    assert kept_per_block(MODEL._replace(seq=250)).scores > \
        kept_per_block(MODEL._replace(seq=250)).tokens


def test_the_model_keeps_its_blocks_plus_the_head():
    per_block, whole = kept_per_block(MODEL), kept(MODEL)
    b, s, d, v = MODEL.batch, MODEL.seq, MODEL.model_dim, MODEL.vocab
    head = 3 * b * s * d + b * s + b * s * v        # final norm (+ std), log-probabilities
    assert whole.scores == MODEL.blocks * per_block.scores
    assert whole.tokens == MODEL.blocks * per_block.tokens + ITEMSIZE * head


def test_the_replay_holds_the_kept_arrays_after_the_forward_and_nothing_at_the_end():
    moments = walk(MODEL)
    forward = [f for moment, f in moments if moment.startswith("forward")]
    k = kept(MODEL)
    assert ITEMSIZE * forward[-1] == k.scores + k.tokens + 2 * ITEMSIZE  # loss, mean
    assert moments[-1] == ("backward: done", 0)
    top, at = peak(MODEL)
    assert top > k.scores + k.tokens and at.startswith("backward")


def test_at_long_sequences_the_peak_is_in_the_softmax_or_the_mlp_backward():
    assert peak(MODEL._replace(seq=512))[1] == "backward: block1.relu"
    top, at = peak(MODEL._replace(seq=1024))
    assert at == "backward: sum of the gradients of block1.scores.exp"
    assert top > kept(MODEL._replace(seq=1024)).scores


def test_every_array_a_block_reads_is_made_before():
    made = {"x"}
    for op in block_ops("", "x", "y"):
        assert set(op.reads + op.keeps + op.also) <= made | {op.out}, op
        made.add(op.out)
    assert len(tape(MODEL)) == 3 + MODEL.blocks * len(block_ops("", "x", "y")) + 9 + 6


def test_the_tape_has_as_many_operations_as_autograd_records():
    weights = to_nd(init_block(8, 2, 16, seed=0))
    x = mx.nd.array(np.random.default_rng(0).normal(size=(2, 5, 8)))
    for a in [x] + [a for part in weights for a in part]:
        a.attach_grad()
    with autograd.record():
        y = block(x, weights, 2, causal=True)
    nodes = json.loads(autograd.get_symbol(y).tojson())["nodes"]
    recorded = [n["op"] for n in nodes if n["op"] != "null"]
    ops = block_ops("", "x", "y")
    assert len(recorded) == len([op for op in ops if op.reads]) == 46
    assert recorded.count("Reshape") == len([op for op in ops if op.view])
    assert recorded.count("BlockGrad") + recorded.count("max") == \
        len([op for op in ops if not op.backward])


@needs_kernel
def test_measured_memory_agrees_with_the_count_and_grows_faster_than_seq():
    measured = measure([128, 256])
    assert all(m.within(0.05, 2e6) for m in measured), measured
    short, long = measured
    assert long.held > 2.3 * short.held and long.peak > 2.3 * short.peak
    assert short.peak > short.held


def test_absurd_sizes_are_refused_before_anything_runs(monkeypatch):
    monkeypatch.setattr(length_memory, "_run", lambda job, timeout: pytest.fail("it ran"))
    with pytest.raises(ValueError, match=r"seq=100000 would keep at least .* GB for the "
                                         r"backward, above the limit of 2 GB"):
        measure([64, 100000])
    with pytest.raises(ValueError, match="blocks=1000 is above the 100 blocks"):
        measure([64], blocks=1000)
    with pytest.raises(ValueError, match="seqs is empty"):
        measure([])
    with pytest.raises(ValueError, match="seqs must be a whole number >= 1, got 0"):
        measure([0])
    with pytest.raises(ValueError, match="heads=3 does not divide model_dim=256: choose"):
        measure([64], heads=3)
    with pytest.raises(TypeError, match="model must be a Model"):
        kept((4, 64, 256, 4, 1024, 2, 256))


def test_a_timeout_and_a_failed_process_end_in_a_sentence():
    job = {"seqs": [64], "batch": 4, "model_dim": 256, "heads": 4, "hidden": 1024,
           "blocks": 2, "vocab": 256, "seed": 0}
    with pytest.raises(RuntimeError, match="did not finish within timeout=0.01 s"):
        length_memory._run(job, timeout=0.01)
    with pytest.raises(RuntimeError, match=r"the memory measurement failed \(exit code 1\): "
                                           r"KeyError"):
        length_memory._run({"seqs": [64]}, timeout=120)
