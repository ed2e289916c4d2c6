"""Typical mistakes as data: each is a wrong answer written as code, with a name and
what to change. A checker runs the learner's function and every mistake on the same
cases; the first mistake that gives the learner's outputs names the error, without
showing the right answer.

>>> halves = (Mistake("no halving", "divide by 2.", lambda x: x),
...           Mistake("wrong factor", "divide by 2, not 3.", lambda x: x / 3))
>>> first_match(halves, [1.0, 2.0], lambda f: [f(3.0), f(6.0)]).what
'wrong factor'
>>> first_match(halves, [0.0, 0.0], lambda f: [f(3.0), f(6.0)]) is None
True
"""

import dataclasses
from typing import Callable

import numpy as np

from tutorial.check.feedback import Verdict


@dataclasses.dataclass(frozen=True)
class Mistake:
    what: str          # a short name of the error
    explain: str       # what to change, without the full answer
    answer: Callable   # the wrong answer, with the signature of the learner's function

    def verdict(self):
        return Verdict(False, f"Not yet: {self.what}: {self.explain}")


def same(a, b, rtol=1e-6, atol=1e-9):
    """Outputs agree: numbers, arrays, or (nested) lists and tuples of them."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y, rtol, atol) for x, y in zip(a, b))
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol,
                                                   equal_nan=True))


def first_match(mistakes, got, outputs, agree=same):
    """The first mistake whose ``outputs(mistake.answer)`` agrees with ``got``, or None."""
    for mistake in mistakes:
        if agree(got, outputs(mistake.answer)):
            return mistake
    return None
