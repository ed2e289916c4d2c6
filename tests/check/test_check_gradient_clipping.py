"""The global-norm clipping exercise: its reference (the library's clip_global_norm)
against NumPy in float64 and a case worked by hand; right answers pass, mistakes written
the way a learner would write them are named, never with the answer."""

import re

import mxnet as mx
import numpy as np
import pytest

from instructor import solutions
from tutorial.check import gradient_clipping
from tutorial.check.gradient_clipping import check_clip_by_global_norm as check
from tutorial.optim.clipping import clip_global_norm


def numpy_clip(grads, max_norm):
    """Independent reference: flatten everything into one vector, clip it, cut it back."""
    flat = np.concatenate([np.ravel(g) for g in grads])
    norm = np.linalg.norm(flat)
    flat = flat if norm <= max_norm else flat * (max_norm / norm)
    sizes = np.cumsum([np.size(g) for g in grads])[:-1]
    return [part.reshape(np.shape(g)) for part, g in zip(np.split(flat, sizes), grads)]


def test_the_library_matches_a_case_worked_by_hand():
    grads = [mx.nd.array([3.0, 0.0], dtype="float64"), mx.nd.array([4.0], dtype="float64")]
    assert clip_global_norm(grads, max_norm=1.0) == 5.0      # the norm before clipping
    assert [g.asnumpy().tolist() for g in grads] == [[pytest.approx(0.6), 0.0],
                                                     [pytest.approx(0.8)]]


@pytest.mark.parametrize("case", gradient_clipping.CASES, ids=lambda c: c[0])
def test_the_checkers_reference_is_numpys_in_float64(case):
    _, grads, max_norm = case
    for ours, numpy in zip(gradient_clipping._reference(grads, max_norm),
                           numpy_clip(grads, max_norm)):
        np.testing.assert_allclose(ours, numpy, rtol=1e-6)   # the library sums in float32


def test_the_library_has_no_epsilon_and_leaves_a_norm_at_the_bound_alone():
    grads = [mx.nd.array([3.0, 4.0], dtype="float64")]
    clip_global_norm(grads, max_norm=5.0)
    assert grads[0].asnumpy().tolist() == [3.0, 4.0]
    zeros = [mx.nd.zeros(3, dtype="float64")]
    assert clip_global_norm(zeros, max_norm=1.0) == 0.0 and zeros[0].asnumpy().sum() == 0


def _via_mxnet(grads, max_norm):                 # the checker's own reference: refused
    arrays = [mx.nd.array(g, dtype="float64") for g in grads]
    clip_global_norm(arrays, max_norm)
    return arrays


@pytest.mark.parametrize("answer", [solutions.clip_by_global_norm, numpy_clip,
                                    lambda grads, c: tuple(numpy_clip(grads, c))])
def test_right_answers_pass(answer):
    verdict = check(answer)
    assert verdict.correct, verdict.text


def _via_gluon(grads, max_norm):
    arrays = [mx.nd.array(g, dtype="float64") for g in grads]
    mx.gluon.utils.clip_global_norm(arrays, max_norm, check_isfinite=False)
    return [a.asnumpy() for a in arrays]


def _imports_it(grads, max_norm):
    from tutorial.optim import clipping
    arrays = [mx.nd.array(g, dtype="float64") for g in grads]
    clipping.clip_global_norm(arrays, max_norm)
    return [a.asnumpy() for a in arrays]


def _norm_from_the_library(grads, max_norm):
    from tutorial.optim.clipping import global_norm
    norm = global_norm([mx.nd.array(g, dtype="float64") for g in grads])
    return [g * max_norm / norm if norm > max_norm else g.copy() for g in grads]


@pytest.mark.parametrize("answer", [_via_mxnet, _via_gluon, _imports_it,
                                    _norm_from_the_library])
def test_calling_a_reference_is_refused_however_it_is_reached(answer):
    verdict = check(answer)
    assert not verdict.correct and "calls the library's reference" in verdict.text, verdict.text


def _norm(arrays):
    return np.sqrt(sum(float(np.sum(np.square(a))) for a in arrays))


def _scale_each(grads, c):
    return [g * min(1.0, c / np.linalg.norm(g)) if np.linalg.norm(g) > 0 else g for g in grads]


def _always(grads, c):
    norm = _norm(grads)
    return [g / norm * c for g in grads]


def _squared(grads, c):
    total = sum(np.sum(g ** 2) for g in grads)
    return [g * c / total if total > c else g for g in grads]


def _norms_added(grads, c):
    norm = sum(np.linalg.norm(g) for g in grads)
    return [g * c / norm if norm > c else g for g in grads]


def _loop_one_short(grads, c):
    norm = np.sqrt(sum(np.sum(grads[i] ** 2) for i in range(len(grads) - 1)))
    return [g * c / norm if norm > c else g for g in grads]


def _larger(grads, c):
    norm = _norm(grads)
    return [g * norm / c if norm > c else g for g in grads]


@pytest.mark.parametrize("answer, what", [
    (_scale_each, "each array clipped by its own norm"),
    (lambda grads, c: [np.minimum(np.maximum(g, -c), c) for g in grads],
     "element-wise clipping"),
    (_always, "small gradients scaled up"),
    (_squared, "squared norm"),
    (_norms_added, "norms added"),
    (_loop_one_short, "an array left out of the norm"),
    (_larger, "factor upside down"),
    (lambda grads, c: grads, "nothing clipped"),
])
def test_mistakes_are_named_without_the_answer(answer, what):
    verdict = check(answer)
    assert not verdict.correct and verdict.text.startswith(f"Not yet: {what}:"), verdict.text
    assert not any(p in "".join(verdict.text.split())
                   for p in solutions.GIVEAWAYS["clip_by_global_norm"])


def _in_place(grads, c):
    norm = _norm(grads)
    if norm > c:
        for g in grads:
            g *= c / norm
    return grads


def _zero_divides(grads, c):
    norm = _norm(grads)
    return [g / norm * min(norm, c) for g in grads]


@pytest.mark.parametrize("answer, phrase", [
    (_in_place, "your results are right, but your function changed the arrays it was given"),
    (_zero_divides, "'all zero' returned nan or inf: all-zero gradients have norm 0"),
    (lambda grads, c: (numpy_clip(grads, c), _norm(grads)), "returned a pair; return only"),
    (lambda grads, c: numpy_clip(grads, c)[:-1], "returned 2 arrays for 3 gradients"),
    (lambda grads, c: np.concatenate([g.ravel() for g in numpy_clip(grads, c)]),
     "returned a ndarray; return a list of NumPy arrays"),
    (lambda grads, c: [g.ravel() for g in numpy_clip(grads, c)],
     r"returned array 1 with shape \(6,\); it must have shape \(2, 3\)"),
    (lambda grads, c: [g * 1.01 for g in numpy_clip(grads, c)],
     "returned arrays that no usual mistake explains"),
    (lambda grads, c: [None for g in grads], "returned None for array 0"),
])
def test_unusable_and_unexplained_answers_get_one_clear_sentence(answer, phrase):
    verdict = check(answer)
    assert not verdict.correct and verdict.text.startswith("Not yet:")
    assert re.search(phrase, verdict.text), verdict.text
    assert not any(p in "".join(verdict.text.split())
                   for p in solutions.GIVEAWAYS["clip_by_global_norm"])


def test_every_listed_mistake_differs_from_the_reference_without_the_zero_case():
    want = [gradient_clipping._reference(g, c) for _, g, c in gradient_clipping.CASES]
    for mistake in gradient_clipping.MISTAKES:
        got = gradient_clipping._outcomes(mistake.answer)
        assert not gradient_clipping._agree(got, want, skip=(gradient_clipping.ZERO,))
