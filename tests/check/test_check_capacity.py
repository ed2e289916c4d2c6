"""The dropout exercise checker accepts right answers and names each typical mistake."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.check.capacity import check_dropout


def right(x, rate, rng):
    keep = rng.uniform(size=x.shape) >= rate
    return x * keep / (1 - rate)


def right_with_binomial(x, rate, rng):
    return x * rng.binomial(1, 1 - rate, size=x.shape) / (1 - rate)


def right_in_mxnet(x, rate, rng):           # an NDArray result is accepted too
    keep = rng.uniform(size=x.shape) >= rate
    return mx.nd.array(x * keep / (1 - rate), dtype="float64")


@pytest.mark.parametrize("answer", [right, right_with_binomial, right_in_mxnet])
def test_right_answers_pass(answer):
    verdict = check_dropout(answer)
    assert verdict.correct, verdict.text


def _unimplemented(x, rate, rng):
    raise NotImplementedError


MISTAKES = [
    (lambda x, rate, rng: x * (rng.uniform(size=x.shape) >= rate), "scale them by 1 / (1 - rate)"),
    (lambda x, rate, rng: x * (rng.uniform(size=x.shape) >= rate) * (1 - rate),
     "divide by (1 - rate) instead"),
    (lambda x, rate, rng: x * (rng.uniform(size=x.shape) < rate) / (1 - rate)
     if rate else x, "probability of dropping"),
    (lambda x, rate, rng: x * (rng.uniform(size=x.shape[1:]) >= rate) / (1 - rate),
     "same mask"),
    (lambda x, rate, rng: right(x, rate, np.random.default_rng(0)), "do not reseed"),
    (lambda x, rate, rng: right(x, rate, rng)[:10], "must have shape (500, 400)"),
    (lambda x, rate, rng: right(x, max(rate, 0.1), rng), "at rate 0"),
    (_unimplemented, "Not written yet"),
    (lambda x, rate, rng: x @ x, "raised ValueError"),
]


@pytest.mark.parametrize("answer, message", MISTAKES)
def test_each_typical_mistake_is_named(answer, message):
    verdict = check_dropout(answer)
    assert not verdict.correct
    assert message in verdict.text


def _gluon_dropout(x, rate, rng):
    """The notebook's own Dropout block, ignoring the rng it is given."""
    import mxnet as mx
    from mxnet import autograd, gluon
    with autograd.record():
        return gluon.nn.Dropout(rate)(mx.nd.array(x)).asnumpy()


def _global_generator(x, rate, rng):
    return x * (np.random.uniform(size=x.shape) >= rate) / (1 - rate)


@pytest.mark.parametrize("answer", [_global_generator])
def test_a_mask_not_drawn_from_the_given_rng_fails(answer):
    verdict = check_dropout(answer)
    assert not verdict.correct
    assert "same seed gave different masks" in verdict.text, verdict.text


def _course_mask_seeded_from_rng(x, rate, rng):
    """The course's own mask, made reproducible by seeding MXNet from the given rng."""
    from tutorial.nn.dropout import inverted_mask
    mx.random.seed(int(rng.integers(2 ** 31)))
    return x * inverted_mask(x.shape, rate, dtype="float64").asnumpy()


def _course_block_seeded_from_rng(x, rate, rng):
    from mxnet import autograd
    from tutorial.nn import Dropout
    mx.random.seed(int(rng.integers(2 ** 31)))
    with autograd.record():
        return Dropout(rate)(mx.nd.array(x, dtype="float64")).asnumpy()


def _gluon_block_seeded_from_rng(x, rate, rng):
    mx.random.seed(int(rng.integers(2 ** 31)))
    return _gluon_dropout(x, rate, rng)


@pytest.mark.parametrize("answer", [_course_mask_seeded_from_rng, _course_block_seeded_from_rng,
                                    _gluon_block_seeded_from_rng, _gluon_dropout])
def test_an_answer_that_runs_the_library_dropout_is_refused(answer):
    verdict = check_dropout(answer)
    assert not verdict.correct
    assert "calls the library's reference" in verdict.text, verdict.text
