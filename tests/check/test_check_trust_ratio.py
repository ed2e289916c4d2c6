"""The LARS exercise checker: its reference is the library's LARS, which we first pin to an
independent NumPy formula; right answers pass, each mistake gets its own message."""

import numpy as np
import pytest

from tutorial.check.large_batch import LEFT_OUT, WEIGHTS, ZEROS, check_trust_ratio, library_ratio


def right(w, g, eta, wd, name):
    if name.endswith(("bias", "gamma", "beta")):
        return 1.0
    w_norm, g_norm = np.sqrt((w ** 2).sum()), np.sqrt((g ** 2).sum())
    if w_norm == 0 or g_norm == 0:
        return 1.0
    return eta * w_norm / (g_norm + wd * w_norm)


def test_the_reference_is_the_deck_formula():
    for name, w, g, eta, wd in WEIGHTS + LEFT_OUT + ZEROS:
        assert library_ratio(w, g, eta, wd, name) == pytest.approx(right(w, g, eta, wd, name),
                                                                   rel=1e-5)


def test_right_answers_pass_also_as_numpy_scalars():
    assert check_trust_ratio(right).correct
    assert check_trust_ratio(lambda *a: np.float32(right(*a))).correct


@pytest.mark.parametrize("answer, phrase", [
    (lambda w, g, eta, wd, name: eta * (np.linalg.norm(g) + wd * np.linalg.norm(w))
     / np.linalg.norm(w), "Not yet: upside down:"),
    (lambda w, g, eta, wd, name: eta * (w ** 2).sum() / ((g ** 2).sum() + wd * (w ** 2).sum()),
     "Not yet: squared norms:"),
    (lambda w, g, eta, wd, name: right(w, g, eta, wd, name) / eta, "Not yet: eta missing:"),
    (lambda w, g, eta, wd, name: eta * np.linalg.norm(w) / np.linalg.norm(g),
     "Not yet: weight decay left out:"),
    (lambda w, g, eta, wd, name: eta * np.linalg.norm(w) / (np.linalg.norm(g) + wd),
     "Not yet: weight decay without the norm:"),
    (lambda w, g, eta, wd, name: right(w, g, eta, wd, "x") if np.any(w) and np.any(g) else 1.0,
     "you scale dense0_bias by"),
    (lambda w, g, eta, wd, name: 1.0 if name.endswith("bias") else right(w, g, eta, wd, "x"),
     "you scale batchnorm0_gamma by"),
    (lambda w, g, eta, wd, name: 1.0 if name.endswith(("bias", "gamma", "beta"))
     else eta * np.linalg.norm(w) / (np.linalg.norm(g) + wd * np.linalg.norm(w)),
     "weights or the gradient of a layer are all 0"),
    (lambda w, g, eta, wd, name: 1.1 * right(w, g, eta, wd, name),
     "Compare your code with the deck's formula"),
    (lambda w, g, eta, wd, name: np.linalg.norm(w, axis=0), "returned a ndarray"),
])
def test_each_mistake_gets_its_message(answer, phrase):
    with np.errstate(divide="ignore", invalid="ignore"):
        verdict = check_trust_ratio(answer)
    assert not verdict.correct and phrase in verdict.text, verdict.text


def test_a_division_by_zero_on_an_all_zero_layer_gets_the_hint():
    def plain_python(w, g, eta, wd, name):
        if name.endswith(("bias", "gamma", "beta")):
            return 1.0
        w_norm, g_norm = float(np.linalg.norm(w)), float(np.linalg.norm(g))
        return eta * w_norm / (g_norm + wd * w_norm)
    verdict = check_trust_ratio(plain_python)
    assert "raised ZeroDivisionError" in verdict.text and "are all 0" in verdict.text


def test_calling_a_lars_the_notebook_can_reach_is_refused():
    import mxnet as mx

    from tutorial import optim                      # as the notebook imports it
    from tutorial.optim.transforms import Step

    def wraps_the_library(w, g, eta, wd, name):
        step = Step(lr=1.0, wd=wd, t=1, raw_grad=mx.nd.array(g), name=name)
        out = optim.trust_ratio.LarsTrustRatio(eta=eta, eps=0.0).update(
            mx.nd.ones((1,)), (), mx.nd.array(w), step)
        return float(out.asscalar())

    def wraps_mxnet(w, g, eta, wd, name):
        lars = mx.optimizer.LARS(eta=eta, eps=0.0, wd=wd, learning_rate=1.0,
                                 param_idx2name={0: name})
        return lars._get_lars(0, mx.nd.array(w), mx.nd.array(g), 1.0, wd)

    for answer in (library_ratio, wraps_the_library, wraps_mxnet):
        verdict = check_trust_ratio(answer)
        assert not verdict.correct and "calls the library's reference" in verdict.text, \
            verdict.text
    assert check_trust_ratio(right).correct           # and the watch is switched off again
