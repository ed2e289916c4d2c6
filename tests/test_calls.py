"""counting() agrees with a wrapper that counts by hand, and leaves the profiler as it was."""

import sys

from tutorial.calls import counting
from tutorial.memory import layers, recompute


def test_counts_what_a_counting_wrapper_counts():
    by_hand = []

    def step(x):
        by_hand.append(x)
        return x + 1

    def run(n):
        return [step(i) for i in range(n) if i % 3]

    with counting(step) as seen:
        run(10)
    assert seen.calls == len(by_hand) == 6


def test_a_call_before_or_after_the_block_is_not_counted():
    def f():
        return 1

    f()
    with counting(f) as seen:
        f()
    f()
    assert seen.calls == 1


def test_the_previous_profiler_is_restored():
    marker = lambda frame, event, arg: None            # noqa: E731
    sys.setprofile(marker)
    try:
        with counting(test_the_previous_profiler_is_restored):
            pass
        assert sys.getprofile() is marker
    finally:
        sys.setprofile(None)


def test_recomputation_runs_the_forwards_inside_its_segments_again():
    import mxnet as mx
    import numpy as np
    rng = np.random.default_rng(0)
    params = [(mx.nd.array(rng.normal(size=(4, 4))), mx.nd.array(rng.normal(size=4)))
              for _ in range(6)]
    X, y = rng.normal(size=(3, 4)), np.array([0.0, 1.0, 2.0])
    runs = {}
    for k in (1, 2, 3, 6):
        with counting(layers.forward) as seen:
            recompute.gradients(params, X, y, recompute.segments(6, k))
        runs[k] = seen.calls
    # forward once, each layer's backward once, and the layers after each boundary again
    assert runs == {k: 2 * 6 + (6 - k) for k in (1, 2, 3, 6)}
