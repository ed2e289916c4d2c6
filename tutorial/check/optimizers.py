"""Exercise checkers for the optimizer notebooks (SGD, momentum, Adam): each update is
a :class:`tutorial.check.updates.UpdateRule` with its typical mistakes, each written as
code (wrong sign, missing lr, weight-decay convention, momentum buffer, bias
correction, ...).

>>> def sgd_step(w, g, lr, lam):
...     return (1 - 2 * lr * lam) * w - lr * g
>>> print(check_sgd(sgd_step))
Correct: your update matches the reference on 3 runs of 4 steps.
>>> print(check_sgd(lambda w, g, lr, lam: (1 - lr * lam) * w - lr * g).text)
Not yet: weight decay convention: you decayed by (1 - lr*lam); the deck's lam enters twice, because the penalty lam*||w||^2 has gradient 2*lam*w. (MXNet's wd is the deck's 2*lam.)
"""

import numpy as np

from tutorial.check.feedback import checker
from tutorial.check.mistakes import Mistake
from tutorial.check.updates import UpdateRule, check_update


# --- SGD with the deck's weight decay: w <- (1 - 2*lr*lam) w - lr g -----------------

SGD = UpdateRule(
    name="sgd_step", state=(),
    reference=lambda w, g, lr, lam: (1 - 2 * lr * lam) * w - lr * g,
    mistakes=(
        Mistake("wrong sign", "you moved up the gradient; subtract lr * g to go downhill.",
                lambda w, g, lr, lam: (1 - 2 * lr * lam) * w + lr * g),
        Mistake("missing learning rate", "the gradient step must be scaled: lr * g, not g.",
                lambda w, g, lr, lam: (1 - 2 * lr * lam) * w - g),
        Mistake("weight decay convention",
                "you decayed by (1 - lr*lam); the deck's lam enters twice, because the "
                "penalty lam*||w||^2 has gradient 2*lam*w. (MXNet's wd is the deck's 2*lam.)",
                lambda w, g, lr, lam: (1 - lr * lam) * w - lr * g),
        Mistake("weight decay missing", "shrink w by (1 - 2*lr*lam) before the step.",
                lambda w, g, lr, lam: w - lr * g),
        Mistake("weight decay not scaled by lr",
                "the decay is part of the step, so it is scaled by lr: (1 - 2*lr*lam), "
                "not (1 - 2*lam).",
                lambda w, g, lr, lam: (1 - 2 * lam) * w - lr * g),
        Mistake("weight decay sign", "decay shrinks w: (1 - 2*lr*lam), not (1 + 2*lr*lam).",
                lambda w, g, lr, lam: (1 + 2 * lr * lam) * w - lr * g),
    ),
    settings=({"lr": 0.1, "lam": 0.05}, {"lr": 0.3, "lam": 0.2}, {"lr": 0.05, "lam": 0.5}),
)


# --- heavy ball as in the deck: s <- mu s + lr g; w <- w - s -----------------------

def _momentum(w, g, s, lr, mu):
    s = mu * s + lr * g
    return w - s, s


MOMENTUM = UpdateRule(
    name="momentum_step", state=("s",), reference=_momentum,
    mistakes=(
        Mistake("wrong sign", "the buffer collects lr * g and w moves against it: w - s.",
                lambda w, g, s, lr, mu: (w + (mu * s + lr * g), mu * s + lr * g)),
        Mistake("missing learning rate",
                "the buffer must collect lr * g (or keep g and step by lr * s).",
                lambda w, g, s, lr, mu: (w - (mu * s + g), mu * s + g)),
        Mistake("momentum buffer not carried",
                "your steps are plain SGD: return the NEW buffer s as the second value, so "
                "the next call gets it back.",
                lambda w, g, s, lr, mu: (w - lr * g, s)),
        Mistake("averaging instead of accumulating",
                "s <- mu*s + (1 - mu)*lr*g is the deck's moving average m_t; the heavy ball "
                "adds the full lr*g, so its steps are 1/(1 - mu) times larger.",
                lambda w, g, s, lr, mu: (w - (mu * s + (1 - mu) * lr * g),
                                         mu * s + (1 - mu) * lr * g)),
        Mistake("stale buffer", "you moved w with the previous buffer; update s first, "
                                "then step with the new s.",
                lambda w, g, s, lr, mu: (w - s, mu * s + lr * g)),
        Mistake("momentum on the gradient",
                "mu multiplies the old buffer s, not the new gradient.",
                lambda w, g, s, lr, mu: (w - (s + mu * lr * g), s + mu * lr * g)),
    ),
    settings=({"lr": 0.1, "mu": 0.9}, {"lr": 0.2, "mu": 0.5}, {"lr": 0.05, "mu": 0.8}),
)


# --- Adam: bias-corrected moments, w <- w - lr m_hat / (sqrt(v_hat) + eps) ----------

def _adam(w, g, m, v, t, lr, beta1, beta2, eps, correct_m=True, correct_v=True,
          eps_inside=False, sign=1.0):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    m_hat = m / (1 - beta1 ** t) if correct_m else m
    v_hat = v / (1 - beta2 ** t) if correct_v else v
    denom = np.sqrt(v_hat + eps) if eps_inside else np.sqrt(v_hat) + eps
    return w - sign * lr * m_hat / denom, m, v


def _mxnet_adam(w, g, m, v, t, lr, beta1, beta2, eps):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    lr_t = lr * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
    return w - lr_t * m / (np.sqrt(v) + eps), m, v


ADAM = UpdateRule(
    name="adam_step", state=("m", "v"), reference=_adam,
    mistakes=(
        Mistake("wrong sign", "Adam steps against the first moment: w - lr*m_hat/(...)",
                lambda *a, **k: _adam(*a, **k, sign=-1.0)),
        Mistake("no bias correction",
                "m and v start at 0, so early on they are too small by (1 - beta**t); divide "
                "by it: m_hat = m/(1 - beta1**t), v_hat = v/(1 - beta2**t).",
                lambda *a, **k: _adam(*a, **k, correct_m=False, correct_v=False)),
        Mistake("bias correction of m only",
                "correct v too: v_hat = v/(1 - beta2**t).",
                lambda *a, **k: _adam(*a, **k, correct_v=False)),
        Mistake("bias correction of v only",
                "correct m too: m_hat = m/(1 - beta1**t).",
                lambda *a, **k: _adam(*a, **k, correct_m=False)),
        Mistake("eps inside the square root",
                "eps is added after the root: sqrt(v_hat) + eps.",
                lambda *a, **k: _adam(*a, **k, eps_inside=True)),
        Mistake("eps placed as in MXNet's kernel",
                "MXNet folds the bias correction into lr and adds eps to sqrt(v), which "
                "shifts eps by sqrt(1 - beta2**t); the exercise asks for the paper's "
                "m_hat/(sqrt(v_hat) + eps).", _mxnet_adam),
        Mistake("betas swapped", "beta1 averages the gradient (m), beta2 its square (v).",
                lambda w, g, m, v, t, lr, beta1, beta2, eps:
                _adam(w, g, m, v, t, lr, beta2, beta1, eps)),
    ),
    settings=({"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 0.1},
              {"lr": 0.05, "beta1": 0.8, "beta2": 0.99, "eps": 0.3},
              {"lr": 0.2, "beta1": 0.5, "beta2": 0.9, "eps": 0.05}),
    takes_t=True,
)


@checker("sgd_step", "sgd_step(w, g, lr, lam) with NumPy arrays w, g of shape (5,) and "
                     "floats lr, lam, returning the new w")
def check_sgd(sgd_step):
    """Check ``sgd_step(w, g, lr, lam) -> w``: the deck's w <- (1 - 2 lr lam) w - lr g."""
    return check_update(SGD, sgd_step)


@checker("momentum_step", "momentum_step(w, g, s, lr, mu) with NumPy arrays w, g, s of "
                          "shape (5,), returning (new w, new s)")
def check_momentum(momentum_step):
    """Check ``momentum_step(w, g, s, lr, mu) -> (w, s)``: s <- mu s + lr g; w <- w - s."""
    return check_update(MOMENTUM, momentum_step)


@checker("adam_step", "adam_step(w, g, m, v, t, lr, beta1, beta2, eps) with NumPy arrays of "
                      "shape (5,) and t = 1, 2, ..., returning (new w, new m, new v)")
def check_adam(adam_step):
    """Check ``adam_step(w, g, m, v, t, lr, beta1, beta2, eps) -> (w, m, v)``, t from 1."""
    return check_update(ADAM, adam_step)
