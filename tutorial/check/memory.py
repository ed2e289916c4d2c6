"""Exercise checker for the memory notebook: what one device holds under each ZeRO stage.

The learner writes ``zero_bytes(parameters, devices, stage, copies)``: the bytes one of
``devices`` devices holds for the weights, the gradients and the optimizer state of a
model with ``parameters`` float32 numbers, under ZeRO ``stage`` (0 = plain data
parallelism), for an optimizer that keeps ``copies`` arrays per weight (SGD 0, momentum
1, Adam 2). The steady state, as in the ZeRO paper's table: shards are 1/K of a whole
(the notebook's footprint also counts the one layer that is whole for a moment, which this
exercise leaves out, and the ring's uneven chunks, which it accepts as whole bytes: below).
Typical mistakes are data.

The reference is this module's :func:`_expected`, which the notebook reaches through its
``from tutorial.check.memory import check_zero_bytes``: a right answer that calls it,
however it got there (``_expected`` itself, a mistake's answer put right, an import inside
the function), is refused (:mod:`tutorial.check.own_work`), and so is one that calls the
library's counts the notebook imports (``model_states.per_device``, ``footprint``,
``step_memory``); a wrong one is still named. An answer could
still tabulate it for :data:`CASES` before the check, so the checker also draws cases
(:func:`_drawn_cases`) from a range too large to tabulate, seeded by the answer's code: one
answer meets the same cases, and gets the same verdict, every time.

What is right, for each of the three numbers (:func:`_close`): the exact count, 4nP bytes
for a kind kept whole and 4nP/K for a sharded one (n = 1 for the weights and the gradients,
``copies`` for the state), to within one part in a million (``mistakes.same``), a float
being fine; or, for a sharded kind, a whole number of bytes from 4n floor(P/K) to
4n ceil(P/K): the ring's chunks (:func:`tutorial.memory.sharding.shards`) give a device
floor(P/K) or ceil(P/K) parameters when K does not divide P, so ``4 * P // K``,
``4 * (P // K)``, ``copies * (4 * P // K)``, the ceilings and a device's own chunk all pass.

A refusal that is not one of :data:`MISTAKES` names the first case with a wrong number and
every wrong number of it: the kind, what was returned, what was expected and why (the
count, the whole-byte range), and what the difference points to: a kind kept whole that
the stage splits or the other way round, the optimizer's copies, the bytes per number, or,
when the number is within 1 % of the count, rounding (:func:`_hint`).

>>> print(check_zero_bytes(lambda P, K, s, c: (4 * P, 4 * P, 4 * c * P)).text[:44])
Not yet: nothing is sharded: stage 1 already
>>> print(check_zero_bytes(lambda P, K, s, c: _expected(P, K, s, c)).text[:50])
Not yet: your zero_bytes calls the library's refer
"""

import math
import numbers

from tutorial.check.answers import Wrong, call
from tutorial.check.feedback import Verdict, checker, shown
from tutorial.check.mistakes import Mistake, first_match, same
from tutorial.check.own_work import case_rng, refuse_if_called, watching

CASES = ((1000, 4, 0, 2), (1000, 4, 1, 2), (1000, 4, 2, 2), (1000, 4, 3, 2),
         (600, 3, 1, 1), (600, 3, 3, 0), (10, 2, 2, 2), (800, 8, 3, 2), (500, 1, 3, 2),
         (1001, 8, 3, 2))                   # 4 * 1001 / 8 = 500.5 bytes: not whole
DRAWN = 3                                   # cases drawn at check time, besides CASES
KINDS = ("weights", "gradients", "optimizer state")


def _drawn_cases(rng):
    """DRAWN cases (parameters, devices, stage, copies) drawn from ``rng``."""
    return tuple((rng.randint(10 ** 3, 10 ** 9), rng.randint(2, 1024), rng.randint(0, 3),
                  rng.randint(0, 3)) for _ in range(DRAWN))


def _sharded(stage):
    """Which of the three kinds ZeRO ``stage`` splits over the devices."""
    return stage >= 3, stage >= 2, stage >= 1


def _expected(P, K, stage, copies):
    return tuple(4.0 * n * P / (K if cut else 1) for n, cut in zip((1, 1, copies), _sharded(stage)))


def _whole(want, unit):
    """The whole numbers of bytes that are right for the exact ``want``: from ``want``'s
    parameters rounded down to rounded up (``unit``: one parameter's bytes in that kind)."""
    if unit == 0 or (want / unit).is_integer():
        return want, want
    return unit * math.floor(want / unit), unit * math.ceil(want / unit)


def _close(got, want, unit):
    """``got`` bytes agree with the exact ``want``: equal, or a whole number of bytes
    within :func:`_whole`."""
    low, high = _whole(want, unit)
    return same(got, want) or (float(got).is_integer() and low <= got <= high)


def _agree(got, want, cases):
    """Every case's three numbers agree (:func:`_close`)."""
    return all(_close(g, w, unit) for gs, ws, (_, _, _, copies) in zip(got, want, cases)
               for g, w, unit in zip(gs, ws, (4, 4, 4 * copies)))


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
        raise Wrong(f"{label} returned {shown(value)}; return three numbers: the bytes of the "
                    f"weights, of the gradients and of the optimizer state")
    for item in value:
        if isinstance(item, bool) or not isinstance(item, numbers.Real):
            raise Wrong(f"{label} returned {shown(value)}; each of the three must be a number")
    return tuple(float(x) for x in value)


@checker("zero_bytes", "zero_bytes(parameters, devices, stage, copies) with whole numbers, "
                       "returning (weight bytes, gradient bytes, optimizer-state bytes)")
def check_zero_bytes(zero_bytes):
    """``zero_bytes(parameters, devices, stage, copies)``: one device's bytes under ZeRO."""
    cases = CASES + _drawn_cases(case_rng(zero_bytes))
    from tutorial.memory.footprint import footprint
    from tutorial.memory.model_states import per_device
    from tutorial.memory.step_memory import step_memory
    with watching(_expected, per_device, footprint, step_memory) as seen:
        answers = [call(zero_bytes, f"zero_bytes{case}", *case) for case in cases]
    got = [_as_bytes(answer, f"zero_bytes{case}") for answer, case in zip(answers, cases)]
    want = [_expected(*case) for case in cases]
    if _agree(got, want, cases):
        refuse_if_called(seen, "zero_bytes")
        return Verdict(True, "Correct: each stage shards one more kind, and a sharded kind "
                             "costs 1/K of it per device.")
    mistake = first_match(MISTAKES, got, lambda wrong: [wrong(*c) for c in cases],
                          agree=lambda a, b: _agree(a, b, cases))
    if mistake:
        return mistake.verdict()
    raise Wrong(_first_difference(got, want, cases))


def _first_difference(got, want, cases):
    """The first case with a wrong number, and every wrong number of it, in one sentence."""
    for answer, exact, case in zip(got, want, cases):
        _, _, stage, copies = case
        wrong = [_difference(kind, g, w, n, cut, case)
                 for kind, g, w, n, cut in zip(KINDS, answer, exact, (1, 1, copies),
                                                _sharded(stage))
                 if not _close(g, w, 4 * n)]
        if wrong:
            return f"zero_bytes{case} returned {answer}: " + "; ".join(wrong)
    raise AssertionError("no difference")            # only called when one exists


def _difference(kind, got, want, n, cut, case):
    """What one wrong number is, what it should be and why, and what the gap points to."""
    P, K, _, copies = case
    how = (f"{copies} copies x " if kind == "optimizer state" else "") + \
        f"{P:,} parameters x 4 bytes" + (f" / {K} devices" if cut else "")
    low, high = _whole(want, 4 * n)
    whole = f", or whole bytes from {low:,.0f} to {high:,.0f}" if low < high else ""
    hint = _hint(kind, got, want, n, cut, case)
    verb = "is" if kind == "optimizer state" else "are"
    return (f"the {kind} {verb} {_shown(got)} bytes, expected {_shown(want)} ({how}{whole})"
            + (f": {hint}" if hint else ""))


def _hint(kind, got, want, n, cut, case):
    """What a wrong number points to, or "" when it is none of these."""
    P, K, stage, copies = case
    if cut and K > 1 and _close(got, want * K, 4 * n):
        return f"stage {stage} splits the {kind} over the {K} devices"
    if not cut and K > 1 and _close(got, want / K, 4 * n):
        return (f"stage {stage} keeps the {kind} whole on every device" +
                (" (stage 0 splits nothing)" if stage == 0 else ""))
    if kind == "optimizer state" and copies not in (0, 1) and _close(got, want / copies, 4):
        return f"the state is {copies} arrays the size of the weights, not one"
    if want and _close(4 * got, want, 4 * n):
        return "a float32 number is 4 bytes"
    if not want or abs(got - want) > 0.01 * abs(want):
        return ""
    off = f"{_shown(abs(got - want))} bytes off, {100 * abs(got - want) / abs(want):.2g} % of it"
    chunks = (f"; a device's chunk holds {P // K:,} or {-(-P // K):,} parameters of each "
              f"array, never more or fewer" if cut and P % K else "")
    return (f"{off}: a rounding difference, not a wrong rule; right are the exact count (a "
            f"float is fine) or a whole number of bytes in that range{chunks} (Python "
            f"integers and float64 count bytes exactly, float32 keeps about 7 digits)")


def _shown(value):
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"
