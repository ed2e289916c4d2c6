"""Checking an optimizer update the learner wrote: roll it out for a few steps next to a
NumPy reference and, when the two part, name the typical mistake it matches.

An :class:`UpdateRule` holds the reference update, its typical mistakes
(:class:`tutorial.check.mistakes.Mistake`) and the hyperparameters of each run. Only the
weights are compared, so any bookkeeping of the state that gives the same weights
(PyTorch's lr-outside-the-buffer momentum, say) is accepted. An answer that runs one of
the rule's ``references`` (library code that computes the same update, reachable from the
notebook) is refused (:mod:`tutorial.check.own_work`).
"""

import dataclasses
from typing import Callable, Tuple

import numpy as np

from tutorial.check.answers import Wrong, as_array, call
from tutorial.check.feedback import Verdict
from tutorial.check.mistakes import first_match, same
from tutorial.check.own_work import refuse_if_called, watching

SIZE = 5    # weights per run


@dataclasses.dataclass(frozen=True)
class UpdateRule:
    name: str                      # the function the learner writes
    state: Tuple[str, ...]         # names of the state it takes and returns after w
    reference: Callable
    mistakes: tuple                # of Mistake
    settings: Tuple[dict, ...]     # hyperparameters of each run (one run per dict)
    steps: int = 4
    takes_t: bool = False          # the update also gets the step number t (1 at the first)
    references: tuple = ()         # functions the answer must not call (library updates)


def rollout(step, rule, hyper, seed):
    """Weights after each of ``rule.steps`` updates of ``step`` (its own state fed back).

    The gradient is that of f(w) = 0.5 * sum(a * w**2) at the current w plus a fixed
    offset, so an error early on changes every later gradient too.
    """
    rng = np.random.default_rng(seed)
    w = rng.normal(size=SIZE)
    a, offset = rng.uniform(0.5, 3.0, size=SIZE), rng.normal(size=SIZE)
    state = tuple(np.zeros(SIZE) for _ in rule.state)
    out = []
    for t in range(1, rule.steps + 1):
        g = a * w + offset
        extra = {"t": t} if rule.takes_t else {}
        result = call(step, f"your {rule.name}", w.copy(), g.copy(),
                      *[s.copy() for s in state], **extra, **hyper)
        w, state = _read(result, rule)
        out.append(w)
    return out


def _read(result, rule):
    """(w, state) from what one call of the update returned."""
    if not rule.state:
        if isinstance(result, (tuple, list)):
            raise Wrong(f"{rule.name} must return the new w only, not a "
                        f"{type(result).__name__}")
        return as_array(result, rule.name, (SIZE,), "w", finite=False), ()
    names = ("w",) + rule.state
    if not isinstance(result, (tuple, list)) or len(result) != len(names):
        raise Wrong(f"{rule.name} must return ({', '.join(names)}), a tuple of "
                    f"{len(names)} arrays; it returned {type(result).__name__}")
    arrays = [as_array(r, rule.name, (SIZE,), name, finite=False)
              for r, name in zip(result, names)]
    return arrays[0], tuple(arrays[1:])


def check_update(rule, submitted):
    """Roll ``submitted`` out next to the reference and name the first mistake it matches."""
    runs = [(hyper, seed) for seed, hyper in enumerate(rule.settings)]
    with watching(*rule.references) as seen:
        got = [rollout(submitted, rule, h, s) for h, s in runs]
    refuse_if_called(seen, rule.name)
    want = [rollout(rule.reference, rule, h, s) for h, s in runs]
    if same(got, want):
        return Verdict(True, f"Correct: your update matches the reference on {len(runs)} runs "
                             f"of {rule.steps} steps.")
    if not all(np.all(np.isfinite(w)) for run in got for w in run):
        raise Wrong("your update produced nan or inf; look for a division by zero or the "
                    "square root of a negative number")
    mistake = first_match(rule.mistakes, got,
                          lambda wrong: [rollout(wrong, rule, h, s) for h, s in runs])
    if mistake:
        return mistake.verdict()
    run = next(i for i, (g, w) in enumerate(zip(got, want)) if not same(g, w))
    k = next(k for k, (g, w) in enumerate(zip(got[run], want[run])) if not same(g, w))
    err = np.abs(got[run][k] - want[run][k]).max()
    setting = ", ".join(f"{key}={value}" for key, value in runs[run][0].items())
    usual = ", ".join(m.what for m in rule.mistakes)
    raise Wrong(f"with {setting}, w first differs from the reference after update {k + 1} "
                f"(largest difference {err:.3g}). None of the usual mistakes ({usual}) "
                f"explains it: compare your code with the equation term by term")
