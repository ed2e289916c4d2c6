"""Exercise checker for the memory notebook: what one device holds under each ZeRO stage.

The learner writes ``zero_bytes(parameters, devices, stage, copies)``: the bytes one of
``devices`` devices holds for the weights, the gradients and the optimizer state of a
model with ``parameters`` float32 numbers, under ZeRO ``stage`` (0 = plain data
parallelism), for an optimizer that keeps ``copies`` arrays per weight (SGD 0, momentum
1, Adam 2). The steady state, as in the ZeRO paper's table: shards are 1/K of a whole
(the notebook's footprint also counts the one layer that is whole for a moment, and the
ring's uneven chunks; this exercise leaves both out). Typical mistakes are data.

The reference is this module's :func:`_expected`, which the notebook reaches through its
``from tutorial.check.memory import check_zero_bytes``: a right answer that calls it,
however it got there (``_expected`` itself, a mistake's answer put right, an import inside
the function), is refused (:mod:`tutorial.check.own_work`); a wrong one is still named. An answer could
still tabulate it for :data:`CASES` before the check, so the checker also draws cases at
check time (:func:`_drawn_cases`) from a range too large to tabulate.

>>> print(check_zero_bytes(lambda P, K, s, c: (4 * P, 4 * P, 4 * c * P)).text[:44])
Not yet: nothing is sharded: stage 1 already
>>> print(check_zero_bytes(lambda P, K, s, c: _expected(P, K, s, c)).text[:50])
Not yet: your zero_bytes calls the library's refer
"""

import numbers
import random

from tutorial.check.answers import Wrong, call
from tutorial.check.feedback import Verdict, checker
from tutorial.check.mistakes import Mistake, first_match, same
from tutorial.check.own_work import refuse_if_called, watching

CASES = ((1000, 4, 0, 2), (1000, 4, 1, 2), (1000, 4, 2, 2), (1000, 4, 3, 2),
         (600, 3, 1, 1), (600, 3, 3, 0), (10, 2, 2, 2), (800, 8, 3, 2), (500, 1, 3, 2))
DRAWN = 3                                   # cases drawn at check time, besides CASES


def _drawn_cases():
    """DRAWN cases (parameters, devices, stage, copies) drawn afresh at every check."""
    draw = random.SystemRandom()
    return tuple((draw.randint(10 ** 3, 10 ** 9), draw.randint(2, 1024), draw.randint(0, 3),
                  draw.randint(0, 3)) for _ in range(DRAWN))


def _expected(P, K, stage, copies):
    sharded = (stage >= 3, stage >= 2, stage >= 1)
    return tuple(4.0 * n * P / (K if cut else 1) for n, cut in zip((1, 1, copies), sharded))


def _shift(stage_of):
    """An answer that shards by another rule: ``stage_of(stage)`` says which stage it uses."""
    return lambda P, K, s, c: _expected(P, K, stage_of(s), c)


MISTAKES = (
    Mistake("nothing is sharded",
            "stage 1 already splits the optimizer state over the devices, stage 2 the "
            "gradients too, stage 3 the weights too.",
            _shift(lambda s: 0)),
    Mistake("the stages are shifted by one",
            "stage 1 shards only the optimizer state; the gradients follow at stage 2 and "
            "the weights at stage 3.",
            _shift(lambda s: min(3, s + 1))),
    Mistake("the weights stay whole at stage 3",
            "ZeRO-3 (FSDP) keeps only a device's shard of the weights and gathers a layer "
            "just before it is used.",
            _shift(lambda s: min(2, s))),
    Mistake("the optimizer's copies are left out",
            "the optimizer state is `copies` arrays the size of the weights (Adam: m and v).",
            lambda P, K, s, c: _expected(P, K, s, 1)),
    Mistake("the bytes per number are wrong",
            "a float32 number is 4 bytes.",
            lambda P, K, s, c: tuple(x / 4 for x in _expected(P, K, s, c))),
)


def _as_bytes(value, label):
    if value is None:
        raise Wrong(f"{label} returned None: end your function with `return weights, "
                    f"gradients, state`")
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 3:
        raise Wrong(f"{label} returned {value!r}; return three numbers: the bytes of the "
                    f"weights, of the gradients and of the optimizer state")
    for item in value:
        if isinstance(item, bool) or not isinstance(item, numbers.Real):
            raise Wrong(f"{label} returned {value!r}; each of the three must be a number")
    return tuple(float(x) for x in value)


@checker("zero_bytes", "zero_bytes(parameters, devices, stage, copies) with whole numbers, "
                       "returning (weight bytes, gradient bytes, optimizer-state bytes)")
def check_zero_bytes(zero_bytes):
    """``zero_bytes(parameters, devices, stage, copies)``: one device's bytes under ZeRO."""
    cases = CASES + _drawn_cases()
    with watching(_expected) as seen:
        answers = [call(zero_bytes, f"zero_bytes{case}", *case) for case in cases]
    got = [_as_bytes(answer, f"zero_bytes{case}") for answer, case in zip(answers, cases)]
    want = [_expected(*case) for case in cases]
    if same(got, want):
        refuse_if_called(seen, "zero_bytes")
        return Verdict(True, "Correct: each stage shards one more kind, and a sharded kind "
                             "costs 1/K of it per device.")
    mistake = first_match(MISTAKES, got, lambda wrong: [wrong(*c) for c in cases])
    if mistake:
        return mistake.verdict()
    case, answer = next((c, g) for c, g, w in zip(cases, got, want) if not same(g, w))
    P, K, stage, copies = case
    raise Wrong(f"zero_bytes{case} returned {answer}. With {P} parameters on {K} devices at "
                f"stage {stage} and {copies} state copies, check which of the three kinds "
                f"are split over the devices at this stage")
