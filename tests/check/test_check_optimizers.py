"""The Adam exercise checker accepts the right answer and names each typical mistake.
The wrong answers below are written independently of the checker's own mistake table,
the way a learner would write them."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.check.optimizers import check_adam


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


def test_an_unlisted_mistake_is_caught_and_located():
    # right at the first update (m = 0), wrong from the second on; no listed mistake matches
    def squared_beta1(w, g, m, v, t, lr, beta1, beta2, eps):
        return _adam(w, g, m * beta1, v, t, lr, beta1, beta2, eps)
    verdict = check_adam(squared_beta1)
    assert not verdict.correct and "first differs from the reference after update 2" in verdict.text


# --- answers that cannot be compared -----------------------------------------------

def test_unwritten_wrong_shape_and_crashing_answers_get_clear_messages():
    def stub(w, g, m, v, t, lr, beta1, beta2, eps):
        raise NotImplementedError
    assert "Not written yet" in check_adam(stub).text
    assert "must return (w, m, v)" in check_adam(lambda w, g, m, v, t, **k: w).text
    assert "shape (1,)" in check_adam(
        lambda w, g, m, v, t, **k: (np.sum(w, keepdims=True), m, v)).text
    assert "raised NameError" in check_adam(
        lambda w, g, m, v, t, **k: (w - grad, m, v)).text  # noqa: F821
    assert "nan or inf" in check_adam(
        lambda w, g, m, v, t, lr, beta1, beta2, eps: (w / 0.0 * 0.0, m, v)).text


# --- an answer that runs the library's Adam is refused ----------------------------------

def _course_adam(w, g, m, v, t, lr, beta1, beta2, eps):
    """The paper's Adam through the course's own transformation (bias-corrected moments)."""
    from tutorial.optim.moments import ScaleByAdam
    from tutorial.optim.transforms import Step
    m, v = mx.nd.array(m, dtype="float64"), mx.nd.array(v, dtype="float64")
    u = ScaleByAdam(beta1, beta2, eps, "moments").update(
        mx.nd.array(g, dtype="float64"), (m, v), None, Step(lr, 0.0, t))
    return w - lr * u.asnumpy(), m.asnumpy(), v.asnumpy()


def _mxnet_lamb_phase1(w, g, m, v, t, lr, beta1, beta2, eps):
    """The paper's Adam direction from MXNet's LAMB kernel (phase 1, no weight decay)."""
    m, v = mx.nd.array(m, dtype="float64"), mx.nd.array(v, dtype="float64")
    direction = mx.nd.lamb_update_phase1(
        mx.nd.array(w, dtype="float64"), mx.nd.array(g, dtype="float64"), m, v,
        beta1=beta1, beta2=beta2, epsilon=eps, t=t, bias_correction=True, wd=0.0)
    return w - lr * direction.asnumpy(), m.asnumpy(), v.asnumpy()


@pytest.mark.parametrize("answer", [_course_adam, _mxnet_lamb_phase1])
def test_an_answer_that_runs_the_library_adam_is_refused(answer):
    verdict = check_adam(answer)
    assert not verdict.correct
    assert "calls the library's reference" in verdict.text, verdict.text
