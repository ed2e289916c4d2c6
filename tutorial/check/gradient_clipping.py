"""Exercise checker for the momentum notebook: clipping a list of gradients by their
global norm.

``clip_by_global_norm(grads, max_norm)`` takes a list of NumPy arrays (one per parameter,
of any shapes) and returns a new list: the same arrays when their global norm, the norm
of all their entries together, is at most ``max_norm``, and otherwise all of them scaled
by one factor so that the global norm becomes ``max_norm``. The arrays passed in stay
unchanged. The reference is the library's :func:`tutorial.optim.clipping.clip_global_norm`
(in place on NDArrays, no epsilon), run on copies. The notebook imports it, and MXNet has
its own (``mx.gluon.utils.clip_global_norm``): an answer that calls either is refused
(:mod:`tutorial.check.own_work`).

>>> def clip_by_global_norm(grads, max_norm):
...     return [np.clip(g, -max_norm, max_norm) for g in grads]
>>> print(check_clip_by_global_norm(clip_by_global_norm).text)
Not yet: element-wise clipping: you cut each entry to [-max_norm, max_norm] (MXNet's clip_gradient), which can turn the gradient's direction. Clipping by the global norm scales every array by the same factor.
"""

import mxnet as mx
import numpy as np

from tutorial.check.answers import Wrong, as_array, call
from tutorial.check.feedback import Verdict, checker
from tutorial.check.mistakes import Mistake, same
from tutorial.check.own_work import refuse_if_called, watching
from tutorial.optim.clipping import clip_global_norm, global_norm

REFERENCES = (clip_global_norm, global_norm, mx.gluon.utils.clip_global_norm)


def _arrays(seed, shapes, scale):
    rng = np.random.default_rng(seed)
    return tuple(scale * rng.normal(size=shape) for shape in shapes)


CASES = (          # (name, grads, max_norm)
    ("three arrays, clipped", _arrays(0, [(4,), (2, 3), (1,)], 2.0), 1.0),
    ("three arrays, already small", _arrays(0, [(4,), (2, 3), (1,)], 2.0), 100.0),
    ("one huge entry", (np.array([30.0, 0.1]), np.array([0.2])), 5.0),
    ("one array", _arrays(1, [(3,)], 1.0), 0.5),
    ("each array small, together too large",
     (np.array([0.6, 0.8]), np.array([[0.8], [0.6]])), 1.2),
    ("norm exactly max_norm", (np.array([3.0]), np.array([4.0])), 5.0),
    ("all zero", (np.zeros(2), np.zeros((3,))), 1.0),
)
ZERO = len(CASES) - 1          # no mistake is told apart by it: only nan shows there


def _norm(grads):
    return float(np.sqrt(sum(np.sum(g * g) for g in grads)))


def _scaled(grads, norm, max_norm):
    return [g * max_norm / norm if norm > max_norm else g for g in grads]


MISTAKES = (
    Mistake("each array clipped by its own norm",
            "the global norm is ONE number for all the arrays together, as if they were one "
            "long vector; one factor then scales every array.",
            lambda grads, c: [_scaled([g], _norm([g]), c)[0] for g in grads]),
    Mistake("element-wise clipping",
            "you cut each entry to [-max_norm, max_norm] (MXNet's clip_gradient), which can "
            "turn the gradient's direction. Clipping by the global norm scales every array "
            "by the same factor.",
            lambda grads, c: [np.clip(g, -c, c) for g in grads]),
    Mistake("small gradients scaled up",
            "gradients whose global norm is already at most max_norm must come back "
            "unchanged; only a norm above max_norm is cut down.",
            lambda grads, c: [g * c / _norm(grads) for g in grads]),
    Mistake("squared norm",
            "you compared the sum of the squares with max_norm; the norm is its square root.",
            lambda grads, c: _scaled(grads, _norm(grads) ** 2, c)),
    Mistake("norms added",
            "adding the arrays' own norms overestimates the global norm; it is the norm of "
            "all entries together (square, sum over every array, then the root).",
            lambda grads, c: _scaled(grads, sum(_norm([g]) for g in grads), c)),
    Mistake("an array left out of the norm",
            "the global norm must include every array in the list.",
            lambda grads, c: _scaled(grads, _norm(grads[:-1]), c)),
    Mistake("an array left out of the norm",
            "the global norm must include every array in the list.",
            lambda grads, c: _scaled(grads, _norm(grads[:1]), c)),
    Mistake("factor upside down",
            "your clipping makes large gradients even larger: the factor must be below 1 "
            "when the norm exceeds max_norm, so that the norm comes out at max_norm.",
            lambda grads, c: [g * _norm(grads) / c if _norm(grads) > c else g for g in grads]),
    Mistake("nothing clipped",
            "your function returns the gradients unchanged even when their global norm "
            "exceeds max_norm. Return the scaled arrays.",
            lambda grads, c: list(grads)),
)


def _label(name):
    return f"clip_by_global_norm(grads, max_norm) on the case '{name}'"


def _read(result, grads, label):
    """The list of arrays ``result`` holds, one per gradient, or :class:`Wrong`."""
    if result is None:
        raise Wrong(f"{label} returned None: end your function with `return` and the list "
                    f"of clipped arrays")
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], (list, tuple)):
        raise Wrong(f"{label} returned a pair; return only the list of clipped arrays (the "
                    f"library's clip_global_norm returns the norm too, this exercise does not)")
    if not isinstance(result, (list, tuple)):
        raise Wrong(f"{label} returned a {type(result).__name__}; return a list of NumPy "
                    f"arrays, one per gradient")
    if len(result) != len(grads):
        raise Wrong(f"{label} returned {len(result)} arrays for {len(grads)} gradients; return "
                    f"one clipped array per gradient, in the same order")
    return [as_array(r, label, g.shape, f"array {i}", finite=False)
            for i, (r, g) in enumerate(zip(result, grads))]


def _outcome(function, case, inputs_kept):
    """What ``function`` returns on ``case`` (a list of arrays) or why it cannot be read."""
    name, grads, max_norm = case
    given = [g.copy() for g in grads]
    try:
        with np.errstate(all="ignore"):
            result = _read(call(function, _label(name), given, max_norm), grads, _label(name))
    except Wrong as wrong:
        return str(wrong)
    inputs_kept.append(all(np.array_equal(a, b) for a, b in zip(given, grads)))
    return result


def _outcomes(function, inputs_kept=None):
    kept = [] if inputs_kept is None else inputs_kept
    return [_outcome(function, case, kept) for case in CASES]


def _agree(got, want, skip=()):
    return all(g == w if isinstance(g, str) or isinstance(w, str) else same(g, w)
               for i, (g, w) in enumerate(zip(got, want)) if i not in skip)


def _reference(grads, max_norm):
    arrays = [mx.nd.array(g, dtype="float64") for g in grads]
    clip_global_norm(arrays, max_norm)
    return [a.asnumpy() for a in arrays]


@checker("clip_by_global_norm", "clip_by_global_norm(grads, max_norm) with a list of NumPy "
                                "arrays and a float, returning a new list of arrays")
def check_clip_by_global_norm(clip_by_global_norm):
    """``clip_by_global_norm(grads, max_norm)``: the library's clip_global_norm, as a
    function that leaves its input unchanged."""
    kept = []
    with watching(*REFERENCES) as seen:
        got = _outcomes(clip_by_global_norm, kept)
    refuse_if_called(seen, "clip_by_global_norm")
    want = [_reference(grads, max_norm) for _, grads, max_norm in CASES]
    if _agree(got, want) and all(kept):
        return Verdict(True, f"Correct: your clipping matches the reference on all "
                             f"{len(CASES)} cases, and the gradients passed in stay unchanged.")
    if _agree(got, want):
        raise Wrong("your results are right, but your function changed the arrays it was "
                    "given (an in-place `*=` does that). The caller may still need the raw "
                    "gradients: compute new arrays instead")
    mistake = next((m for m in MISTAKES if _agree(got, _outcomes(m.answer), skip=(ZERO,))),
                   None)
    if mistake:
        return mistake.verdict()
    failed = next((g for g in got if isinstance(g, str)), None)
    if failed:
        raise Wrong(failed)
    if _agree(got, want, skip=(ZERO,)):
        raise Wrong(f"{_label(CASES[ZERO][0])} returned nan or inf: all-zero gradients have "
                    f"norm 0, and your function divides by it. Their norm is below max_norm, "
                    f"so they need no scaling at all")
    i = next(i for i, (g, w) in enumerate(zip(got, want)) if not same(g, w))
    raise Wrong(f"{_label(CASES[i][0])} returned arrays that no usual mistake explains. "
                f"Compute the global norm of this case by hand and compare")
