"""The memory quiz: its numbers are what tutorial.memory counts."""

from tutorial.check.memory import _expected
from tutorial.memory.recompute import sqrt_segments
from tutorial.quizzes.memory import QUIZ


def right_options(number):
    return {o.text for o in QUIZ.questions[number].options if o.is_right}


def test_the_megabytes_are_the_zero_table():
    mb = {s: sum(_expected(1_000_000, 4, s, 2)) / 1e6 for s in range(4)}
    assert mb == {0: 16.0, 1: 10.0, 2: 7.0, 3: 4.0}
    assert any("16 MB" in t for t in right_options(0))
    assert any("10 MB" in t for t in right_options(0))


def test_sixteen_layers_in_four_segments_hold_seven_outputs():
    plan = sqrt_segments(16)
    assert len(plan) == 4
    assert len(plan) + max(b - a for a, b in plan) - 1 == 7


def test_recomputation_costs_the_forwards_the_quiz_says():
    import mxnet as mx
    import numpy as np

    from tutorial.calls import counting
    from tutorial.memory import layers, recompute
    rng = np.random.default_rng(0)
    params = [(mx.nd.array(rng.normal(size=(3, 3))), mx.nd.array(rng.normal(size=3)))
              for _ in range(16)]
    X, y = rng.normal(size=(2, 3)), np.array([0.0, 2.0])
    runs = {}
    for k in (4, 16):
        with counting(layers.forward) as seen:
            recompute.gradients(params, X, y, recompute.segments(16, k))
        runs[k] = seen.calls
    assert runs[4] - runs[16] == 16 - 4
    assert any("n - k more layer forwards" in o.why
               for o in QUIZ.questions[3].options if not o.is_right)
