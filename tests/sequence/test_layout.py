"""Choosing a layout: parameters against the course's init functions, every cost of a tiny
model on 2 devices worked by hand per strategy, facts that must hold whatever the sizes,
model FLOPs against a count of every matrix product, and bad input refused."""

import pytest

from tutorial.experts.moe import init_moe
from tutorial.memory.footprint import sent_per_step
from tutorial.memory.model_states import per_device
from tutorial.memory.roofline import matmul
from tutorial.parallel.pipeline.schedules import peak_held, schedule
from tutorial.sequence.block import init_block
from tutorial.sequence.layout import (Layout, Parameters, Transformer, block_shapes,
                                      check_layout, parameters, stage_parameters)
from tutorial.sequence.layout_costs import (Cost, cost, model_states, ring_bytes,
                                            stage_costs)
from tutorial.sequence.layout_table import default_layouts, feasible, format_table, table
from tutorial.sequence.model_flops import model_flops_per_step, mfu, multiplied_weights

TINY = Transformer(layers=1, model_dim=4, heads=2, hidden=8, seq=4, batch=2, vocab=5)
MOE = TINY._replace(experts=2)
GPT2 = Transformer(12, 768, 12, 3072, seq=1024, batch=32, vocab=50257)
SMALL = Transformer(layers=4, model_dim=32, heads=4, hidden=64, seq=16, batch=16, vocab=50)


@pytest.mark.parametrize("d, heads, hidden", [(4, 2, 8), (6, 3, 10), (8, 1, 32)])
def test_block_shapes_are_init_blocks(d, heads, hidden):
    model = TINY._replace(model_dim=d, heads=heads, hidden=hidden)
    weights = init_block(d, heads, hidden)
    assert [[a.shape for a in part] for part in weights] == \
        [list(part) for part in block_shapes(model)]
    tables = 5 * d + 4 * d + 2 * d + d * 5 + 5      # tokens, positions, final norm, output
    assert parameters(model) == sum(a.size for part in weights for a in part) + tables
    three = model._replace(layers=3)
    assert parameters(three) - parameters(model) == 2 * sum(a.size for p in weights for a in p)


def test_experts_multiply_the_mlp_as_init_moe_does():
    w = init_moe(model_dim=4, hidden=8, num_experts=2)
    moe = [w.router] + [a for expert in w.experts for a in expert]
    block = init_block(4, 2, 8)
    assert parameters(MOE) == parameters(TINY) - sum(a.size for a in block.mlp) + \
        sum(a.size for a in moe)


def test_the_tables_are_the_course_transformers():
    transformer = pytest.importorskip("tutorial.sequence.transformer")
    w = transformer.init_transformer(vocab=5, max_len=4, model_dim=4, heads=2, blocks=1,
                                     hidden=8)
    arrays = [w.tokens, w.positions, *w.final_norm, w.output, w.output_bias] + \
        [a for part in w.blocks[0] for a in part]
    assert parameters(TINY) == sum(a.size for a in arrays) == 225


# Each strategy on 2 devices, by hand. TINY: 225 parameters (block 156, tables 20 + 16,
# final norm 8, output 25); a block keeps, per sequence of 4 positions (numbers): LayerNorms
# 4 x 16, gathered 2 x 16, heads 4 x 16, scores 3 x 2 heads x 16 + mask 32, hidden 32 = 320.
def test_data_parallel_by_hand():
    c = cost(TINY, Layout(data=2))
    assert (c.weights, c.gradients, c.optimizer_state) == (900, 900, 1800)
    assert c.activations == 4 * 320                 # one sequence each
    assert c.data_sent == 4 * (113 + 112)           # ring: one chunk reduced, one copied
    assert c.sent == c.data_sent


def test_zero3_by_hand():
    c = cost(TINY, Layout(data=2, zero=3))
    shard = 113                                     # the larger of 113 + 112
    assert c.weights == c.gradients == 4 * (shard + 156)   # + one block whole
    assert c.optimizer_state == 8 * shard
    # reduce-scatter: device 1 sends chunk 1 (112); all-gather twice: chunk 0 (113)
    assert c.data_sent == 4 * (112 + 2 * 113)


def test_tensor_parallel_by_hand():
    c = cost(TINY, Layout(tensor=2))
    # rank 0: block 16 + 4 x 8 + 16 + 4 + 16 + 4 = 88; vocab rows 3 of 5: 12 + 16, 8 + 12 + 3
    assert stage_parameters(TINY, Layout(tensor=2), 0) == Parameters(139, 0)
    assert (c.weights, c.optimizer_state, c.data_sent) == (556, 1112, 0)
    # 4 allreduces of 4 positions x (2 x 4) numbers: each device sends 2 + 2 positions
    assert c.tensor_sent == 4 * 4 * 8 * 4
    # 2 sequences: LayerNorms 4 x 32, gathered 2 x 32, heads 4 x 16, scores 3 x 32 + 32, hidden 32
    assert c.activations == 4 * (128 + 64 + 64 + 96 + 32 + 32)


def test_sequence_parallel_by_hand():
    c = cost(TINY, Layout(tensor=2, sequence_parallel=True))
    assert c.activations == 4 * (64 + 64 + 64 + 96 + 32 + 32)   # LayerNorms on 2 positions
    # 4 reduce-scatters + 4 all-gathers send what 4 allreduces do; + 5 x 4 replicated
    # weights' gradients allreduced (10 numbers each way)
    assert c.tensor_sent == 512 + 4 * 20


def test_context_parallel_by_hand():
    c = cost(TINY, Layout(context=2))
    # a position's keys and values: 2 sequences x 2 heads x (2 + 2) x 4 bytes = 64;
    # each device passes its 2 positions once forward, their gradients once backward
    assert c.context_sent == 2 * 2 * 64
    assert c.data_sent == 900                       # the 2 devices are replicas
    # device 1 (positions 2-3): its own block (partly masked) and device 0's (unmasked),
    # 2 x 2 pairs each. Per 2 sequences: LayerNorms 4 x 16, gathered 2 x 16, heads 4 x 16,
    # scores 3 x 2 x 8 x 2 heads + mask 2 x 4 x 2, hidden 2 x 2 x 8; + the 2 received
    # positions' keys and values
    assert c.activations == 4 * (64 + 32 + 64 + 96 + 16 + 32) + 2 * 64


def test_pipeline_by_hand():
    two = TINY._replace(layers=2, batch=4)
    layout = Layout(pipeline=2, microbatches=2)
    first, last = stage_costs(two, layout)
    assert (first.weights, last.weights) == (4 * (156 + 36), 4 * (156 + 33))
    assert peak_held(schedule("1f1b", 2, 2)) == [2, 1]
    # micro-batches of 2 sequences: 640 numbers a block; stage 0 holds 2 at once
    assert (first.activations, last.activations) == (2 * 4 * 640, 4 * 640)
    boundary = 2 * 4 * 4 * 4                          # (2, 4, 4) float32
    assert first.pipeline_sent == last.pipeline_sent == 2 * boundary   # F out, B back
    assert cost(two, layout) == Cost(*map(max, zip(first, last)))


def test_expert_parallel_by_hand():
    c = cost(MOE, Layout(data=2, expert=2))
    # dense: norms 16, attention 64, router 8; tables 36; final norm and output 33. One
    # expert (32 + 8 + 32 + 4) per device, held by no other: its gradient is not summed
    assert stage_parameters(MOE, Layout(data=2, expert=2), 0) == Parameters(157, 76)
    assert c.weights == 4 * (157 + 76)
    assert c.data_sent == 4 * 157
    # 4 tokens, capacity ceil(4 / 2) = 2 rows to each expert; 2 rows x 16 bytes sent each
    # way, dispatch and combine, forward and backward
    assert c.expert_sent == 4 * 2 * 16
    # the MLP keeps 4 rows' input, relu output and output instead of 4 tokens' relu output
    assert c.activations == 4 * (320 + 4 * (4 + 8 + 4) - 32)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("stage", [0, 1, 2, 3])
def test_ring_bytes_are_footprints(k, stage):
    for size in (7, 10, 13):
        assert ring_bytes(size, k, stage, 4) == max(sent_per_step([size], k, stage))
    whole = model_states(13, k, stage, 4, block=0)
    assert sum(whole) == max(per_device(13, k, stage, 4, 4, 8, device=d) for d in range(k))


def test_zero3_weights_fall_with_data_parallelism():
    weights = [cost(SMALL, Layout(data=d, zero=3)).weights for d in (1, 2, 4, 8)]
    assert weights == sorted(weights, reverse=True) and len(set(weights)) == 4
    plain = {cost(SMALL, Layout(data=d)).weights for d in (1, 2, 4, 8)}
    assert plain == {4 * parameters(SMALL)}


def test_sequence_parallel_keeps_less_and_sends_as_much():
    for t in (2, 4):
        tp, sp = (cost(SMALL, Layout(tensor=t, sequence_parallel=s)) for s in (False, True))
        assert sp.activations < tp.activations
        assert sp.tensor_sent - tp.tensor_sent == SMALL.layers * 4 * 2 * (t - 1) * 5 * 32 // t


@pytest.mark.parametrize("c", [2, 4, 8])
def test_context_cuts_activations_by_c(c):
    one, cut = cost(SMALL, Layout()).activations, cost(SMALL, Layout(context=c)).activations
    # the last device received (c - 1) / c of the positions' keys and values
    received = SMALL.layers * (SMALL.seq - SMALL.seq // c) * SMALL.batch * 2 * 32 * 4
    # the causal mask is only kept on the diagonal tiles: up to one score array less
    mask = SMALL.layers * 4 * SMALL.batch * SMALL.heads * SMALL.seq ** 2
    assert (one - mask) / c <= cut - received <= one / c


def test_experts_multiply_parameters_not_what_a_device_holds():
    four, eight = SMALL._replace(experts=4), SMALL._replace(experts=8)
    expert = 2 * 32 * 64 + 64 + 32                  # W1, b1, W2, b2
    assert parameters(eight) - parameters(four) == SMALL.layers * 4 * (expert + 32)  # + router
    held = [stage_parameters(m, Layout(data=e, expert=e), 0).experts
            for m, e in ((four, 4), (eight, 8))]
    assert held[0] == held[1] == SMALL.layers * expert


def test_pipeline_activations_follow_the_schedule():
    layout = Layout(pipeline=4, microbatches=8)
    per_stage = [s.activations for s in stage_costs(SMALL, layout)]
    assert per_stage == [per_stage[3] * held for held in (4, 3, 2, 1)]


def test_default_layouts_fit_and_the_table_prints():
    for n in (8, 16):
        layouts = default_layouts(GPT2, n)
        assert all(layout.devices == n for layout in layouts) and len(layouts) >= 8
        assert len(set(layouts)) == len(layouts)
    rows = table(GPT2, default_layouts(GPT2, 8))
    assert rows[0].cost.states == 16 * parameters(GPT2)
    assert "D2 x T4+SP" in format_table(rows, memory_limit=16e9)
    assert not feasible(rows[0].cost, memory_limit=1e9)
    moe = default_layouts(SMALL._replace(experts=8), 8)
    assert any(layout.expert == 8 for layout in moe)


def test_model_flops_by_hand_and_by_every_product():
    assert multiplied_weights(TINY) == 4 * 16 + 2 * 32 + 20
    b, s, d, h = TINY.batch, TINY.seq, TINY.model_dim, TINY.heads
    products = [matmul(b * s, d, d)] * 4 + [matmul(b * s, d, 8), matmul(b * s, 8, d),
                                            matmul(b * s, d, TINY.vocab)]
    scores = [matmul(s, d // h, s), matmul(s, s, d // h)]           # q kᵀ, weights v
    forward = sum(p.flops for p in products) + b * h * sum(p.flops for p in scores)
    assert model_flops_per_step(TINY, causal=False) == 3 * forward
    assert model_flops_per_step(TINY) == 3 * forward - 3 * b * h * sum(p.flops for p in
                                                                        scores) // 2
    moe = TINY._replace(experts=4, k=2)
    assert multiplied_weights(moe) == 4 * 16 + 4 * 4 + 2 * 2 * 32 + 20
    assert model_flops_per_step(GPT2) == pytest.approx(
        6 * (12 * (4 * 768 ** 2 + 2 * 768 * 3072) + 768 * 50257) * 32 * 1024 +
        6 * 12 * 1024 ** 2 * 768 * 32)
    assert mfu(1e12, seconds=2.0, peak_flops=1e11, devices=10) == pytest.approx(0.5)


@pytest.mark.parametrize("call, error, message", [
    (lambda: cost((1, 2), Layout()), TypeError, "model must be a Transformer"),
    (lambda: cost(TINY, (1, 2)), TypeError, "layout must be a Layout"),
    (lambda: cost(TINY._replace(heads=3), Layout()), ValueError,
     "model.heads=3 does not divide model.model_dim=4"),
    (lambda: cost(TINY, Layout(tensor=4)), ValueError,
     "layout.tensor=4 does not divide model.heads=2"),
    (lambda: cost(TINY, Layout(context=3)), ValueError, "layout.context=3 does not divide"),
    (lambda: cost(TINY, Layout(pipeline=2)), ValueError, "layout.pipeline=2 does not divide"),
    (lambda: cost(TINY, Layout(data=4)), ValueError,
     "layout.data x layout.microbatches=4 does not divide model.batch=2"),
    (lambda: cost(TINY, Layout(zero=4)), ValueError, "layout.zero must be 0, 1, 2 or 3"),
    (lambda: cost(TINY, Layout(sequence_parallel=True)), ValueError, "needs layout.tensor"),
    (lambda: cost(TINY, Layout(tensor=2, sequence_parallel=1)), TypeError, "True or False"),
    (lambda: cost(TINY, Layout(data=2, expert=2)), ValueError, "the model has no experts"),
    (lambda: cost(MOE, Layout(expert=2)), ValueError,
     "layout.expert=2 does not divide layout.data x layout.context=1"),
    (lambda: cost(MOE._replace(k=3), Layout()), ValueError, "k=3 is larger than the 2"),
    (lambda: cost(MOE._replace(capacity_factor=None), Layout()), ValueError, "no capacity"),
    (lambda: cost(TINY, Layout(data=0)), ValueError, "layout.data must be a whole number"),
    (lambda: default_layouts(TINY, 1), ValueError, "devices must be a whole number >= 2"),
    (lambda: table(TINY, Layout()), TypeError, "for one layout write"),
    (lambda: feasible(cost(TINY, Layout()), -1), ValueError, "memory_limit=-1"),
    (lambda: feasible(3, 1e9), TypeError, "cost must be a Cost"),
    (lambda: mfu(1e9, 0.0, 1e9), ValueError, "seconds=0.0 is out of range"),
    (lambda: mfu(1e9, 1.0, float("nan")), ValueError, "peak_flops=nan"),
])
def test_bad_input_is_refused(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_check_layout_returns_a_good_layout():
    layout = Layout(data=2, tensor=2, sequence_parallel=True, context=2, pipeline=2,
                    microbatches=2, zero=1)
    model = SMALL._replace(experts=4)
    assert check_layout(model, layout._replace(expert=4)).devices == 16


def test_model_flops_are_korthikantis_for_a_4h_mlp():
    B, s, l, h, V = GPT2.batch, GPT2.seq, GPT2.layers, GPT2.model_dim, GPT2.vocab
    megatron = 72 * B * s * l * h ** 2 * (1 + s / (6 * h) + V / (12 * h * l))
    assert model_flops_per_step(GPT2, causal=False) == pytest.approx(megatron, rel=1e-12)
