"""Exercise checker for the adaptive-methods notebook: Adam's update is a
:class:`tutorial.check.updates.UpdateRule` with its typical mistakes, each written as
code (wrong sign, bias correction, where eps goes, swapped betas, ...). The notebook
imports the course's optimizers and MXNet, whose Adam and LAMB code can compute the
paper's update too: an answer that runs them is refused.

>>> print(check_adam(_adam))
Correct: your update matches the reference on 3 runs of 4 steps.
>>> print(check_adam(lambda *a, **k: _adam(*a, **k, eps_inside=True)).text)
Not yet: eps inside the square root: eps is added after the root: sqrt(v_hat) + eps.
"""

import mxnet as mx
import numpy as np

from tutorial.check.feedback import checker
from tutorial.check.mistakes import Mistake
from tutorial.check.updates import UpdateRule, check_update
from tutorial.optim.moments import ScaleByAdam, update_moments

# library code that computes Adam's update (the course's and MXNet's Adam and LAMB)
ADAM_REFERENCES = (ScaleByAdam.update, update_moments, mx.optimizer.Adam.update,
                   mx.optimizer.LAMB.update, mx.nd.adam_update, mx.nd.lamb_update_phase1,
                   mx.nd.lamb_update_phase2)


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
    references=ADAM_REFERENCES,
)


@checker("adam_step", "adam_step(w, g, m, v, t, lr, beta1, beta2, eps) with NumPy arrays of "
                      "shape (5,) and t = 1, 2, ..., returning (new w, new m, new v)")
def check_adam(adam_step):
    """Check ``adam_step(w, g, m, v, t, lr, beta1, beta2, eps) -> (w, m, v)``, t from 1."""
    return check_update(ADAM, adam_step)
