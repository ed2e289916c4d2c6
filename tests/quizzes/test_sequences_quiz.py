"""The sequences-and-experts quiz: its numbers are what tutorial.sequence and
tutorial.experts compute."""

import math

import mxnet as mx
import numpy as np

from tutorial.experts.all_to_all import reverse, schedule as all_to_all
from tutorial.experts.capacity import expert_capacity
from tutorial.experts.gating import load_balancing_reference, route
from tutorial.quizzes.sequences import QUIZ
from tutorial.sequence.online_softmax import Partial, finish, merge
from tutorial.sequence.parallel_block_costs import bytes_per_block
from tutorial.sequence.ring_schedule import computed, schedule
from tutorial.sequence.sequence_parallel_block import REPLICATED


def question(stem):
    [found] = [q for q in QUIZ.questions if stem in q.text]
    return found


def option(q, start):
    [found] = [o for o in q.options if o.text.startswith(start)]
    return found


def test_the_scores_are_s_squared_per_head():
    q = question("8 heads over s = 4096")
    assert 8 * 4096 ** 2 * 4 == 512 * 2 ** 20 and option(q, "8 × 4096² numbers").is_right
    assert 8 * 4096 * 64 * 4 == 8 * 2 ** 20 and not option(q, "8 × 4096 × 64").is_right
    assert (2 * 4096) ** 2 == 4 * 4096 ** 2 and option(q, "four times").is_right


def test_sequence_parallelism_sends_what_tensor_parallelism_sends():
    for k in (2, 3, 4):
        b = bytes_per_block(batch=2, seq=10, model_dim=8, devices=k)
        assert b.tensor_parallel == b.sequence_parallel
    assert len(REPLICATED) == 5                       # "5 × model_dim numbers"
    q = question("Sequence parallelism (Korthikanti")
    assert option(q, "the same bytes").is_right and not option(q, "it sends half").is_right


def test_the_merge_by_hand():
    def one(m, l, o):
        return Partial(*(mx.nd.array([[[[v]]]], dtype="float64") for v in (m, l, o)))
    merged = merge(one(2, 3, 6), one(5, 1, 4))
    assert merged.m.asscalar() == 5
    assert round(float(merged.l.asscalar()), 3) == round(3 * math.exp(-3) + 1, 3) == 1.149
    assert round(float(finish(merged).asscalar()), 2) == 3.74
    q = question("Two partial softmax results")
    assert option(q, "m = 5, l = 3e").is_right and not option(q, "m = 5, l = 3 + 1").is_right


def test_ring_bytes_and_the_causal_imbalance():
    plan = schedule(16, 4, causal=False, position_bytes=1)
    assert all(sent == 3 * 4 for sent in [sum(s[d].nbytes for s in plan.steps) for d in range(4)])
    plain = computed(schedule(16, 4, causal=True, placement="plain"))
    blocks = [c // 16 for c in plain]                 # a block is 4 x 4 positions
    assert blocks == [1, 2, 3, 4] and max(blocks) / (sum(blocks) / 4) == 1.6
    assert len(set(computed(schedule(16, 4, causal=True, placement="zigzag")))) == 1
    q = question("Causal ring attention")
    assert option(q, "device 3 computes").is_right and not option(q, "zig-zag sends").is_right


def test_capacity_and_drops():
    assert expert_capacity(12, 4, k=1, capacity_factor=1.0) == 3
    choice = [2, 2, 0, 2, 1, 2, 3, 2, 0, 1, 3, 0]     # five tokens choose expert 2
    p = np.eye(4)[choice] * 0.7 + 0.075
    r = route(p, k=1, capacity_factor=1.0)
    assert r.requested[2] == 5 and r.dropped == 2
    assert option(question("T = 12 tokens"), "two of them are dropped").is_right


def test_all_to_all_steps_and_its_reverse():
    counts = [[1, 2, 0, 1], [0, 1, 3, 1], [2, 0, 1, 1], [1, 1, 1, 0]]
    plan = all_to_all(counts)
    assert [step.shift for step in plan.steps] == [1, 2, 3]
    assert all(m.destination == (m.source + step.shift) % 4
               for step in plan.steps for m in step.messages)
    assert reverse(plan).counts == tuple(zip(*counts))


def test_the_load_balancing_loss_at_its_ends():
    alpha, e, t = 0.01, 8, 64
    uniform = np.full((t, e), 1 / e)
    assert abs(load_balancing_reference(uniform, route(uniform, 1, None), alpha) - alpha) < 1e-12
    collapsed = np.eye(e)[np.zeros(t, dtype=int)] * 0.99 + 0.01 / e
    loss = load_balancing_reference(collapsed, route(collapsed, 1, None), alpha)
    assert 0.95 * alpha * e < loss <= alpha * e
    q = question("load-balancing loss")
    assert not option(q, "it is 0").is_right and option(q, "it is about α E").is_right


def test_the_scores_overtake_the_tokens_near_three_and_a_half_head_dims():
    from tutorial.sequence.length_memory import kept_per_block
    from tutorial.sequence.step_tape import Model
    shape = dict(batch=4, model_dim=256, heads=4, hidden=1024, blocks=2, vocab=256)
    below, above = (kept_per_block(Model(seq=s, **shape)) for s in (216, 232))
    assert below.scores < below.tokens and above.scores > above.tokens   # 3.5 x 64 = 224
    why = option(question("8 heads over s = 4096"), "four times as much").why
    assert "3.5 × head_dim (224 positions" in why


def test_the_layout_question_is_section_sevens_table():
    from tutorial.sequence.layout import Transformer
    from tutorial.sequence.layout_table import default_layouts, feasible, table
    gpt2 = Transformer(12, 768, 12, 3072, seq=1024, batch=32, vocab=50257)
    rows = {r.layout.name: r for r in table(gpt2, default_layouts(gpt2, 8))}
    d8, zero3, t4 = rows["D8"].cost, rows["D8 ZeRO-3"].cost, rows["D2 x T4"].cost
    assert (round(d8.states / 1e9, 2), round(zero3.states / 1e9, 2)) == (2.61, 0.38)
    assert round(d8.activations / 1e9, 2) == 11.78 and not feasible(zero3, 8e9)
    assert (round(t4.sent / 1e6), round(d8.sent / 1e6)) == (3789, 1141)
    assert all(feasible(r.cost, 8e9) == (r.layout.pipeline > 1) for r in rows.values())
    q = question("Section 7 counts")
    assert option(q, "only the layouts with a pipeline fit").is_right
    assert not option(q, "ZeRO-3 makes D8 fit").is_right
    assert "3,789 MB" in option(q, "D2 x T4 sends less").why
