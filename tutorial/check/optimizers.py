"""Exercise checkers for the optimizer notebooks: they run the learner's update for a
few steps next to a NumPy reference and, when the two part, say WHAT is wrong.

Each exercise has a reference update and a list of typical mistakes, each written as
code. A wrong answer is rolled out next to every mistake; the one it matches names the
error (wrong sign, missing lr, weight-decay convention, momentum buffer, bias
correction, ...). Only the weights are compared, so any bookkeeping of the state that
gives the same weights (PyTorch's lr-outside-the-buffer momentum, say) is accepted.

>>> def sgd_step(w, g, lr, lam):
...     return (1 - 2 * lr * lam) * w - lr * g
>>> print(check_sgd(sgd_step))
Correct: your update matches the reference on 3 runs of 4 steps.
>>> print(check_sgd(lambda w, g, lr, lam: (1 - lr * lam) * w - lr * g).text)
Not yet: weight decay convention: you decayed by (1 - lr*lam); the deck's lam enters twice, (1 - 2*lr*lam), because the penalty lam*||w||^2 has gradient 2*lam*w. (MXNet's wd is the deck's 2*lam.)
"""

import dataclasses
from typing import Callable, Tuple

import numpy as np

from tutorial.check.feedback import Verdict, checker  # noqa: F401  (Verdict: used by all)


@dataclasses.dataclass(frozen=True)
class Mistake:
    what: str          # short name of the error
    explain: str       # what to change
    step: Callable     # the wrong update, same signature as the right one


@dataclasses.dataclass(frozen=True)
class Exercise:
    name: str                      # the function the learner writes
    state: Tuple[str, ...]         # names of the state it takes and returns after w
    reference: Callable
    mistakes: Tuple[Mistake, ...]
    settings: Tuple[dict, ...]     # hyperparameters of each run (one run per dict)
    steps: int = 4
    takes_t: bool = False          # the update also gets the step number t (1 at the first)


def _as_array(x, exercise, what):
    """``x`` as float64 NumPy, or a _Shape naming what ``exercise.name`` returned instead."""
    if x is None:
        raise _Shape(f"{exercise.name} returned None for {what}: end it with `return ...`")
    x = x.asnumpy() if hasattr(x, "asnumpy") else x
    try:
        array = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise _Shape(f"{exercise.name} returned a {type(x).__name__} for {what}; return a "
                     f"NumPy array of numbers") from None
    if array.shape != (5,):
        raise _Shape(f"{exercise.name} returned {what} with shape {array.shape}; it must keep "
                     f"the shape of the {what} it was given, (5,)")
    return array


def _rollout(step, exercise, hyper, seed):
    """Weights after each of ``exercise.steps`` updates of ``step`` (its own state fed back).

    The gradient is that of f(w) = 0.5 * sum(a * w**2) at the current w plus a fixed
    offset, so an error early on changes every later gradient too.
    """
    rng = np.random.default_rng(seed)
    w = rng.normal(size=5)
    a, offset = rng.uniform(0.5, 3.0, size=5), rng.normal(size=5)
    state = tuple(np.zeros(5) for _ in exercise.state)
    out = []
    for t in range(1, exercise.steps + 1):
        g = a * w + offset
        extra = {"t": t} if exercise.takes_t else {}
        result = step(w.copy(), g.copy(), *[s.copy() for s in state], **extra, **hyper)
        if exercise.state:
            if not isinstance(result, (tuple, list)) or len(result) != 1 + len(exercise.state):
                raise _Shape(f"{exercise.name} must return ({', '.join(('w',) + exercise.state)})"
                             f", a tuple of {1 + len(exercise.state)} arrays; it returned "
                             f"{type(result).__name__}")
            w = _as_array(result[0], exercise, "w")
            state = tuple(_as_array(s, exercise, name) for s, name in zip(result[1:],
                                                                          exercise.state))
        else:
            if isinstance(result, (tuple, list)):
                raise _Shape(f"{exercise.name} must return the new w only, not a "
                             f"{type(result).__name__}")
            w = _as_array(result, exercise, "w")
        out.append(w)
    return out


class _Shape(Exception):
    pass


def _same(a, b):
    return all(np.allclose(x, y, rtol=1e-6, atol=1e-9) for x, y in zip(a, b))


def check(exercise, submitted):
    """Roll ``submitted`` out next to the reference and name the first mistake it matches."""
    runs = [(hyper, seed) for seed, hyper in enumerate(exercise.settings)]
    try:
        got = [_rollout(submitted, exercise, h, s) for h, s in runs]
    except NotImplementedError:
        return Verdict(False, f"Not written yet: replace the `raise NotImplementedError` in "
                              f"{exercise.name} with your update, run that cell, then this one.")
    except _Shape as e:
        return Verdict(False, f"Not yet: {e}.")
    except Exception as e:                      # the learner's code failed: say where
        return Verdict(False, f"Not yet: your {exercise.name} raised {type(e).__name__}: {e}. "
                              f"It is called with NumPy arrays of shape (5,) and floats.")
    want = [_rollout(exercise.reference, exercise, h, s) for h, s in runs]
    if all(_same(g, w) for g, w in zip(got, want)):
        return Verdict(True, f"Correct: your update matches the reference on {len(runs)} runs "
                             f"of {exercise.steps} steps.")
    if any(not np.all(np.isfinite(w)) for run in got for w in run):
        return Verdict(False, "Not yet: your update produced nan or inf; look for a division "
                              "by zero or the square root of a negative number.")
    for mistake in exercise.mistakes:
        wrong = [_rollout(mistake.step, exercise, h, s) for h, s in runs]
        if all(_same(g, w) for g, w in zip(got, wrong)):
            return Verdict(False, f"Not yet: {mistake.what}: {mistake.explain}")
    run = next(i for i, (g, w) in enumerate(zip(got, want)) if not _same(g, w))
    k = next(k for k, (g, w) in enumerate(zip(got[run], want[run])) if not np.allclose(g, w))
    err = np.abs(got[run][k] - want[run][k]).max()
    return Verdict(False, f"Not yet: with {_describe(runs[run][0])}, w first differs from the "
                          f"reference after update {k + 1} (largest difference {err:.3g}). "
                          f"None of the usual mistakes ({', '.join(m.what for m in exercise.mistakes)}) "
                          f"explains it: compare your code with the equation term by term.")


def _describe(hyper):
    return ", ".join(f"{k}={v}" for k, v in hyper.items())


# --- SGD with the deck's weight decay: w <- (1 - 2*lr*lam) w - lr g -----------------

SGD = Exercise(
    name="sgd_step", state=(),
    reference=lambda w, g, lr, lam: (1 - 2 * lr * lam) * w - lr * g,
    mistakes=(
        Mistake("wrong sign", "you moved up the gradient; subtract lr * g to go downhill.",
                lambda w, g, lr, lam: (1 - 2 * lr * lam) * w + lr * g),
        Mistake("missing learning rate", "the gradient step must be scaled: lr * g, not g.",
                lambda w, g, lr, lam: (1 - 2 * lr * lam) * w - g),
        Mistake("weight decay convention",
                "you decayed by (1 - lr*lam); the deck's lam enters twice, (1 - 2*lr*lam), "
                "because the penalty lam*||w||^2 has gradient 2*lam*w. (MXNet's wd is the "
                "deck's 2*lam.)",
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


MOMENTUM = Exercise(
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
                "mu multiplies the old buffer, not the new gradient: s <- mu*s + lr*g.",
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


ADAM = Exercise(
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
    return check(SGD, sgd_step)


@checker("momentum_step", "momentum_step(w, g, s, lr, mu) with NumPy arrays w, g, s of "
                          "shape (5,), returning (new w, new s)")
def check_momentum(momentum_step):
    """Check ``momentum_step(w, g, s, lr, mu) -> (w, s)``: s <- mu s + lr g; w <- w - s."""
    return check(MOMENTUM, momentum_step)


@checker("adam_step", "adam_step(w, g, m, v, t, lr, beta1, beta2, eps) with NumPy arrays of "
                      "shape (5,) and t = 1, 2, ..., returning (new w, new m, new v)")
def check_adam(adam_step):
    """Check ``adam_step(w, g, m, v, t, lr, beta1, beta2, eps) -> (w, m, v)``, t from 1."""
    return check(ADAM, adam_step)
