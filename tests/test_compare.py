"""relative_difference against a plain NumPy formula, its edge cases, and bad input explained."""

import math

import mxnet as mx
import numpy as np
import pytest

from tutorial.compare import relative_difference


def test_matches_the_formula_over_every_array():
    rng = np.random.default_rng(0)
    desired = [rng.normal(size=(3, 4)), rng.normal(size=5) * 100]
    actual = [d + rng.normal(size=d.shape) * 1e-3 for d in desired]
    by_hand = [np.max(np.abs(a - d)) / np.max(np.abs(d)) for a, d in zip(actual, desired)]
    assert relative_difference(actual, desired) == pytest.approx(max(by_hand), rel=1e-12)
    # relative to the reference: the small-scale array, not the large one, decides here
    assert by_hand[0] > by_hand[1]


def test_the_second_argument_is_the_reference():
    a, b = [np.array([1.0, 3.0])], [np.array([1.0, 2.0])]
    assert relative_difference(a, b) == pytest.approx(1 / 2)
    assert relative_difference(b, a) == pytest.approx(1 / 3)


def test_identical_weights_give_zero_and_ndarrays_and_dicts_work():
    w = [mx.nd.array([[1.0, -2.0]]), mx.nd.array([0.5])]
    assert relative_difference(w, [x.asnumpy() for x in w]) == 0.0
    assert relative_difference({"dense0_w": np.ones(2)}, {"dense7_w": np.ones(2) * 2}) == 0.5


def test_nan_anywhere_gives_nan_and_a_zero_reference_gives_inf():
    ok, bad = np.ones(3), np.array([1.0, np.nan, 1.0])
    assert math.isnan(relative_difference([ok, bad], [ok, ok]))
    assert math.isnan(relative_difference([bad, ok], [ok, ok]))      # not order dependent
    assert math.isnan(relative_difference([ok], [bad]))
    assert relative_difference([np.ones(2)], [np.zeros(2)]) == math.inf
    assert relative_difference([np.zeros(2)], [np.zeros(2)]) == 0.0


@pytest.mark.parametrize("actual, desired, message", [
    ([np.ones(2)], [np.ones(2), np.ones(2)], "1 arrays against 2"),
    ([np.ones(2)], [np.ones(3)], r"array 0: shapes \(2,\) and \(3,\) differ"),
    ([], [], "nothing to compare"),
    (np.ones(3), np.ones(3), "a list of arrays"),
    ([np.ones(2)], [None], "array 0 is not an array of numbers"),
    ([np.ones(2)], [["a", "b"]], "array 0 is not an array of numbers"),
])
def test_bad_input_gets_a_sentence(actual, desired, message):
    with pytest.raises(ValueError, match=message):
        relative_difference(actual, desired)
