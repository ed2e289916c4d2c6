"""The exercise checkers accept right answers (also in other valid bookkeeping) and name
each typical mistake. The wrong answers below are written independently of the
checker's own mistake table, the way a learner would write them."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.check.optimizers import check_adam, check_momentum, check_sgd


# --- SGD with the deck's weight decay ---------------------------------------------

def test_sgd_right_answers_pass():
    assert check_sgd(lambda w, g, lr, lam: (1 - 2 * lr * lam) * w - lr * g).correct
    # the same update in MXNet's convention, wd = 2 lam, on NDArrays
    def via_mxnet(w, g, lr, lam):
        w = mx.nd.array(w, dtype="float64")
        return w - lr * (mx.nd.array(g, dtype="float64") + 2 * lam * w)
    assert check_sgd(via_mxnet).correct


@pytest.mark.parametrize("answer, what", [
    (lambda w, g, lr, lam: w - 2 * lr * lam * w + lr * g, "wrong sign"),
    (lambda w, g, lr, lam: w * (1 - 2 * lr * lam) - g, "missing learning rate"),
    (lambda w, g, lr, lam: w - lr * (g + lam * w), "weight decay convention"),
    (lambda w, g, lr, lam: w - lr * g, "weight decay missing"),
    (lambda w, g, lr, lam: w - 2 * lam * w - lr * g, "weight decay not scaled by lr"),
    (lambda w, g, lr, lam: w + 2 * lr * lam * w - lr * g, "weight decay sign"),
])
def test_sgd_mistakes_are_named(answer, what):
    verdict = check_sgd(answer)
    assert not verdict.correct and f"Not yet: {what}:" in verdict.text


# --- heavy-ball momentum ------------------------------------------------------------

def test_momentum_right_answers_pass():
    def deck(w, g, s, lr, mu):
        s = mu * s + lr * g
        return w - s, s

    def pytorch_style(w, g, s, lr, mu):      # lr outside the buffer: same weights
        s = mu * s + g
        return w - lr * s, s

    def mxnet_style(w, g, s, lr, mu):        # MXNet keeps -s: s <- mu s - lr g; w += s
        s = -s
        s = mu * s - lr * g
        return w + s, -s

    for answer in (deck, pytorch_style, mxnet_style):
        assert check_momentum(answer).correct, answer.__name__


def _squared_mu(w, g, s, lr, mu):
    s = mu * mu * s + lr * g
    return w - s, s


def _ema(w, g, s, lr, mu):
    s = mu * s + (1 - mu) * lr * g
    return w - s, s


def _stale(w, g, s, lr, mu):
    w = w - s
    return w, mu * s + lr * g


@pytest.mark.parametrize("answer, what", [
    (lambda w, g, s, lr, mu: (w + mu * s + lr * g, mu * s + lr * g), "wrong sign"),
    (lambda w, g, s, lr, mu: (w - mu * s - g, mu * s + g), "missing learning rate"),
    (_ema, "averaging instead of accumulating"),
    (_stale, "stale buffer"),
])
def test_momentum_mistakes_are_named(answer, what):
    verdict = check_momentum(answer)
    assert not verdict.correct and f"Not yet: {what}:" in verdict.text


def test_an_unlisted_mistake_is_caught_and_located():
    # right at the first update (s = 0), wrong from the second on; no listed mistake matches
    verdict = check_momentum(_squared_mu)
    assert not verdict.correct and "first differs from the reference after update 2" in verdict.text


def test_buffer_never_returned_is_plain_sgd():
    def returns_old_buffer(w, g, s, lr, mu):
        s_new = mu * s + lr * g
        return w - s_new, s
    for answer in (returns_old_buffer, lambda w, g, s, lr, mu: (w - lr * g, s)):
        assert "momentum buffer not carried" in check_momentum(answer).text


# --- Adam ------------------------------------------------------------------------------

def _adam(w, g, m, v, t, lr, beta1, beta2, eps, correct=(True, True), eps_in=False):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g ** 2
    mh = m / (1 - beta1 ** t) if correct[0] else m
    vh = v / (1 - beta2 ** t) if correct[1] else v
    return w - lr * mh / ((vh + eps) ** 0.5 if eps_in else vh ** 0.5 + eps), m, v


def test_adam_right_answer_passes():
    assert check_adam(_adam).correct


def test_adam_matches_mxnet_when_eps_is_tiny():
    # independent reference: MXNet's own Adam, eps negligible, 4 steps
    opt = mx.optimizer.Adam(learning_rate=0.1, beta1=0.9, beta2=0.999, epsilon=1e-12)
    w, state = mx.nd.array([0.5, -1.0], dtype="float64"), None
    state = opt.create_state(0, w)
    ours, m, v = np.array([0.5, -1.0]), np.zeros(2), np.zeros(2)
    for t, g in enumerate([[1.0, 2.0], [0.5, -1.0], [-2.0, 0.3], [0.1, 0.1]], 1):
        opt.update(0, w, mx.nd.array(g, dtype="float64"), state)
        ours, m, v = _adam(ours, np.array(g), m, v, t, 0.1, 0.9, 0.999, 1e-12)
    np.testing.assert_allclose(w.asnumpy(), ours, rtol=1e-5)   # MXNet's lr is a float32


@pytest.mark.parametrize("answer, what", [
    (lambda *a, **k: _adam(*a, **k, correct=(False, False)), "no bias correction"),
    (lambda *a, **k: _adam(*a, **k, correct=(True, False)), "bias correction of m only"),
    (lambda *a, **k: _adam(*a, **k, correct=(False, True)), "bias correction of v only"),
    (lambda *a, **k: _adam(*a, **k, eps_in=True), "eps inside the square root"),
])
def test_adam_mistakes_are_named(answer, what):
    verdict = check_adam(answer)
    assert not verdict.correct and f"Not yet: {what}:" in verdict.text


def test_adam_swapped_betas_and_sign():
    swapped = check_adam(lambda w, g, m, v, t, lr, beta1, beta2, eps:
                         _adam(w, g, m, v, t, lr, beta2, beta1, eps))
    assert "betas swapped" in swapped.text

    def uphill(w, g, m, v, t, lr, beta1, beta2, eps):
        w2, m, v = _adam(w, g, m, v, t, lr, beta1, beta2, eps)
        return 2 * w - w2, m, v
    assert "wrong sign" in check_adam(uphill).text


# --- answers that cannot be compared -----------------------------------------------

def test_unwritten_wrong_shape_and_crashing_answers_get_clear_messages():
    def stub(w, g, lr, lam):
        raise NotImplementedError
    assert "Not written yet" in check_sgd(stub).text
    assert "must return (w, s)" in check_momentum(lambda w, g, s, lr, mu: w - lr * g).text
    assert "must return the new w only" in check_sgd(lambda w, g, lr, lam: (w, g)).text
    assert "shape (1,)" in check_sgd(lambda w, g, lr, lam: np.sum(w - lr * g, keepdims=True)).text
    assert "raised NameError" in check_sgd(lambda w, g, lr, lam: w - lr * grad).text  # noqa
    assert "nan or inf" in check_adam(
        lambda w, g, m, v, t, lr, beta1, beta2, eps: (w / 0.0 * 0.0, m, v)).text
