"""Schedules: values pinned at the first step, the end of warmup and the last step, and
checked against MXNet's own schedulers (which count num_update from 1)."""

import math
import re
import pickle

import mxnet as mx
import pytest

from tutorial.optim import schedules as S


def test_constant_and_polynomial_values():
    assert [S.constant(0.3)(t) for t in (0, 1, 10**6)] == [0.3, 0.3, 0.3]
    poly = S.polynomial(alpha=2.0, beta=4.0)
    assert poly(0) == pytest.approx(1.0)                 # 2 / sqrt(4)
    assert poly(12) == pytest.approx(0.5)                # 2 / sqrt(16)


def test_piecewise_constant_boundaries_belong_to_the_next_piece():
    s = S.piecewise_constant([3, 5], [1.0, 0.5, 0.25])
    assert [s(t) for t in range(7)] == [1.0, 1.0, 1.0, 0.5, 0.5, 0.25, 0.25]


def test_cosine_first_middle_last():
    s = S.cosine(1.0, total_steps=10, final_lr=0.1)
    assert s(0) == pytest.approx(1.0)
    assert s(5) == pytest.approx(0.55)
    assert s(9) == pytest.approx(0.1 + 0.9 * (1 + math.cos(math.pi * 0.9)) / 2)
    assert s(10) == pytest.approx(0.1) and s(50) == pytest.approx(0.1)


def test_warmup_first_step_is_not_zero_and_reaches_the_peak():
    s = S.warmup(S.constant(0.8), warmup_steps=4)          # start_lr = 0 by default
    assert [s(t) for t in range(6)] == pytest.approx([0.2, 0.4, 0.6, 0.8, 0.8, 0.8])
    s = S.warmup(S.exponential(1.0, 0.5), warmup_steps=3, start_lr=0.4)
    assert s(0) == pytest.approx(0.6)                     # 0.4 + 0.6 * 1/3
    assert s(2) == pytest.approx(1.0)                     # end of warmup = schedule(0)
    assert s(4) == pytest.approx(0.25)                    # schedule(2)


def test_adapter_first_num_update_is_step_zero():
    sched = S.as_lr_scheduler(S.warmup(S.cosine(0.4, 90), warmup_steps=10))
    assert sched(1) == pytest.approx(0.04)               # first update
    assert sched(10) == pytest.approx(0.4)               # end of warmup
    assert sched(100) == pytest.approx(0.0)              # last step: cosine reached final_lr
    assert sched(0) == pytest.approx(0.04)               # before any update (lr property)


@pytest.mark.parametrize("warmup_steps,begin", [(1, 0.0), (5, 0.0), (7, 0.05)])
def test_warmup_cosine_equals_mxnet_cosine_scheduler(warmup_steps, begin):
    total = 60
    ours = S.as_lr_scheduler(S.warmup(S.cosine(0.5, total - warmup_steps, final_lr=0.01),
                                      warmup_steps, start_lr=begin))
    theirs = mx.lr_scheduler.CosineScheduler(max_update=total, base_lr=0.5, final_lr=0.01,
                                             warmup_steps=warmup_steps, warmup_begin_lr=begin)
    for num_update in range(1, total + 5):
        assert ours(num_update) == pytest.approx(theirs(num_update), rel=1e-12), num_update


def test_piecewise_and_exponential_equal_mxnet_factor_schedulers():
    ours = S.as_lr_scheduler(S.piecewise_constant([10, 25], [0.1, 0.01, 0.001]))
    theirs = mx.lr_scheduler.MultiFactorScheduler(step=[10, 25], factor=0.1, base_lr=0.1)
    ours_exp = S.as_lr_scheduler(S.exponential(0.1, 0.9))
    theirs_exp = mx.lr_scheduler.FactorScheduler(step=1, factor=0.9, base_lr=0.1)
    for num_update in range(1, 40):
        assert ours(num_update) == pytest.approx(theirs(num_update))
        assert ours_exp(num_update) == pytest.approx(theirs_exp(num_update))


def test_schedules_are_pure_and_picklable():
    s = S.warmup(S.piecewise_constant([5], [1.0, 0.1]), 3)
    values = [s(t) for t in range(10)]
    assert [s(t) for t in reversed(range(10))] == values[::-1]     # no hidden state
    copy = pickle.loads(pickle.dumps(S.as_lr_scheduler(s)))
    assert [copy(n) for n in range(1, 11)] == values


def test_reduce_on_plateau_min_and_max():
    plateau = S.ReduceOnPlateau(lr=1.0, factor=0.5, patience=1, min_lr=0.2)
    lrs = [plateau.observe(m) for m in [5, 4, 4, 4, 4, 4, 4, 4]]
    assert lrs == [1.0, 1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.2]
    assert plateau(123) == 0.2
    acc = S.ReduceOnPlateau(lr=0.1, factor=0.1, patience=0, mode="max")
    assert [acc.observe(a) for a in [0.5, 0.6, 0.6]] == pytest.approx([0.1, 0.1, 0.01])


@pytest.mark.parametrize("make,message", [
    (lambda: S.constant(-0.1), "lr=-0.1"),
    (lambda: S.piecewise_constant([5], [0.1]), "one more value"),
    (lambda: S.piecewise_constant([5, 2], [0.1, 0.2, 0.3]), "step 2 comes out of order"),
    (lambda: S.piecewise_constant([5, 5], [0.1, 0.2, 0.3]),
     "boundaries (5, 5): step 5 comes twice; list each step at which lr changes once, in "
     "increasing order"),
    (lambda: S.piecewise_constant([0, 5], [0.1, 0.2, 0.3]),
     "boundaries[0] must be a whole number >= 1 (a step at which lr changes), got 0"),
    (lambda: S.piecewise_constant([-3], [0.1, 0.2]), "boundaries[0] must be a whole number"),
    (lambda: S.piecewise_constant([2.5], [0.1, 0.2]), "got 2.5"),
    (lambda: S.piecewise_constant([5], [0.1, float("nan")]), "values[1]=nan is out of range"),
    (lambda: S.polynomial(1.0, 0.0), "beta=0.0"),
    (lambda: S.exponential(0.1, 1.5), "decay=1.5"),
    (lambda: S.cosine(0.1, 0), "total_steps must be a whole number >= 1, got 0"),
    (lambda: S.warmup(S.constant(0.1), 0), "warmup_steps must be a whole number >= 1, got 0"),
    (lambda: S.ReduceOnPlateau(0.1, patience=-1), "patience must be a whole number >= 0"),
    (lambda: S.ReduceOnPlateau(0.1, mode="median"), "mode='median'"),
])
def test_bad_arguments_say_what_to_do(make, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make()


def test_warmup_of_a_number_is_a_type_error():
    with pytest.raises(TypeError, match="schedule"):
        S.warmup(0.1, 5)
