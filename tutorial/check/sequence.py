"""Exercise checker for the sequences notebook: merging two partial softmax attentions.

``merge_partials(a, b)``: ``a`` and ``b`` are what the same query rows know after seeing two
disjoint sets of keys, each a tuple ``(m, l, o)`` of float64 NumPy arrays (the online
softmax of Milakov & Gimelshein 2018, under Flash and ring attention;
:mod:`tutorial.sequence.online_softmax` is the library's):

    m  (rows,)       the largest score seen
    l  (rows,)       sum over the keys seen of exp(score - m)
    o  (rows, dim)   sum over the keys seen of exp(score - m) * value   (not divided by l)

It returns the partial over both sets of keys, exact and in either order; ``o / l[:, None]``
is then the attention output. A row that saw no key yet holds m = ``attention.MASKED``
(-1e30), l = 0, o = 0, and a merge with it leaves the other side as it was.

Right, in every case (:func:`_difference`): m is the largest score of both sides, m +
log(l) the log-sum-exp of all the scores (to 1e-6, so that further merges stay right), o / l
the attention output over both sets of keys (rtol 1e-6), all finite, also for scores near
+-1000 where exp of a raw score overflows or underflows float64; the truth is the partial of
all the scores at once (:func:`_partial`). The partials passed in stay unchanged. The cases
are :data:`CASES` and :data:`DRAWN` more from the answer's seed (``own_work.case_rng``). An
answer that calls the library's ``partial``, ``merge`` or ``finish`` (the notebook imports
them) or a function of :mod:`tutorial.sequence.attention` is refused (``own_work``).

>>> def merge_partials(a, b):                        # the sums added as they are
...     return np.maximum(a[0], b[0]), a[1] + b[1], a[2] + b[2]
>>> print(check_merge_partials(merge_partials).text[:48])
Not yet: sums added without rescaling: each side
"""

import inspect
from typing import NamedTuple

import numpy as np

from tutorial.check.answers import Wrong, as_array, call
from tutorial.check.feedback import Verdict, checker
from tutorial.check.mistakes import Mistake, first_match, same
from tutorial.check.own_work import case_rng, watching
from tutorial.sequence import attention
from tutorial.sequence.attention import MASKED
from tutorial.sequence.online_softmax import finish, merge, partial

DRAWN = 3          # cases drawn from the answer's seed, beyond CASES
LOG_SUM_EXP_ATOL = 1e-6     # m and m + log(l): absolute, as they reach 2000 in the cases


class Case(NamedTuple):
    name: str
    a: tuple        # (m, l, o) over the first keys, (rows,), (rows,), (rows, dim)
    b: tuple        # (m, l, o) over the others
    want: tuple     # (m, l, o) over all the keys at once: the truth


def _partial(scores, values, seen):
    """(m, l, o) over the keys ``seen`` marks, at once; a row that saw none: (MASKED, 0, 0)."""
    masked = np.where(seen, scores, -np.inf)                           # (rows, keys)
    m = np.where(seen.any(axis=1), masked.max(axis=1), MASKED)         # (rows,)
    e = np.where(seen, np.exp(masked - m[:, None]), 0.0)               # (rows, keys)
    return m, e.sum(axis=1), e @ values                                # o: (rows, dim)


def _case(name, scores, values, split, empty=None):
    """Keys [:split] are a's, the rest b's; ``empty`` = (row, "a" or "b"): that side saw
    none of its keys in that row."""
    s, v = np.asarray(scores, dtype=np.float64), np.asarray(values, dtype=np.float64)
    seen = np.ones(s.shape, dtype=bool)                                # (rows, keys)
    if empty:
        row, side = empty
        seen[row, :split], seen[row, split:] = side != "a", side != "b"
    return Case(name, _partial(s[:, :split], v[:split], seen[:, :split]),
                _partial(s[:, split:], v[split:], seen[:, split:]), _partial(s, v, seen))


ROWS_2, VALUES_3 = [[0.5, 1, -2], [1, 2, 0]], [[1, 2], [3, -1], [0, 4]]    # 2 rows, 3 keys
NEAR_0, VALUES_4 = np.array([[0, -2, 3, -1], [-3, 1, 0, -4]]), [[1, 0], [0, 1], [2, -1], [-1, 3]]
CASES = (                  # by hand: a = (0, 1, 6), b = (1, 2, 3), merged (1, 2.3679, 5.2073)
    _case("one row, by hand", [[0, 1, 1]], [[6], [0], [3]], 1),
    _case("two rows, a larger maximum on each side", [[2, 0.5, -1, 0], [-1, 0, 3, 1]],
          VALUES_4, 2),
    _case("a saw no key yet in row 0", ROWS_2, VALUES_3, 1, empty=(0, "a")),
    _case("b saw no key yet in row 1", ROWS_2, VALUES_3, 1, empty=(1, "b")),
    _case("scores near 1000", 1000 + NEAR_0, VALUES_4, 2),
    _case("scores near -1000", -1000 + NEAR_0, VALUES_4, 2),
)


def _drawn_cases(rng):
    """DRAWN cases: scores around -2000 to 2000, in about half a row one side did not see."""
    cases = []
    for i in range(DRAWN):
        rows, dim, keys = rng.randint(1, 4), rng.randint(1, 4), rng.randint(2, 8)
        draw = np.random.default_rng(rng.getrandbits(64))
        spread = rng.choice((1.0, 3.0, 30.0))
        scores = rng.uniform(-2000, 2000) + spread * draw.normal(size=(rows, keys))
        split = rng.randint(1, keys - 1)
        empty = (rng.randrange(rows), rng.choice("ab")) if rng.random() < 0.5 else None
        cases.append(_case(f"drawn {i + 1}", scores, draw.normal(size=(keys, dim)), split,
                           empty))
    return tuple(cases)


def _down(side, m):                                      # at most 1 when m is the larger
    return np.exp(side - m)


def _merged(a, b, m=None, factor=_down, rescale="lo"):
    """Both sides brought to ``m`` (default the larger maximum) by ``factor(side's m, m)``,
    only the sums named in ``rescale``, then added: the mistakes' common shape."""
    (m_a, l_a, o_a), (m_b, l_b, o_b) = a, b
    m = np.maximum(m_a, m_b) if m is None else m
    f_a, f_b = factor(m_a, m), factor(m_b, m)
    l_a, l_b = (l_a * f_a, l_b * f_b) if "l" in rescale else (l_a, l_b)
    o_a, o_b = (o_a * f_a[:, None], o_b * f_b[:, None]) if "o" in rescale else (o_a, o_b)
    return m, l_a + l_b, o_a + o_b


def _output(p):                                          # o / l of a partial p
    return p[2] / p[1][:, None]


def _outputs_averaged(a, b):
    m, l, _ = _merged(a, b)
    return m, l, l[:, None] * (_output(a) + _output(b)) / 2


RAW_EXP = ("exp of a score near 1000 overflows float64 (inf above about 709) and near -1000 it "
           "underflows to 0. Take exp only of a score minus the largest score, which is at "
           "most 0, and keep m the largest score.")

MISTAKES = (
    Mistake("sums added without rescaling",
            "each side's l and o are sums of exp(score - its own m), m_a or m_b. Bring both "
            "to the new m first: exp(score - m) is exp(score - m_a) times a factor.",
            lambda a, b: _merged(a, b, factor=lambda s, m: np.ones_like(s))),
    Mistake("the factor is upside down",
            "exp(m - m_a) is 1 or more: it grows the side whose maximum lies below the new "
            "m, where it must shrink it. Every factor is at most 1.",
            lambda a, b: _merged(a, b, factor=lambda s, m: _down(m, s))),
    Mistake("l is not rescaled",
            "l is a sum of exp(score - m) too: it needs o's factors, or o / l mixes scales.",
            lambda a, b: _merged(a, b, rescale="o")),
    Mistake("o is not rescaled",
            "o is a sum of exp(score - m) * value: it needs l's factors, or o / l mixes scales.",
            lambda a, b: _merged(a, b, rescale="l")),
    Mistake("the smaller maximum is kept",
            "m is the largest score of both sides. Only then is every factor at most 1, so "
            "that nothing overflows: a row that saw no key has m = -1e30.",
            lambda a, b: _merged(a, b, np.minimum(a[0], b[0]))),
    Mistake("exp of the raw maxima", RAW_EXP,
            lambda a, b: _merged(a, b, factor=lambda s, m: np.exp(s))),
    Mistake("exp of the raw maxima", RAW_EXP,
            lambda a, b: _merged(a, b, np.zeros_like(a[0]), lambda s, m: np.exp(s))),
    Mistake("the two outputs are averaged",
            "each side weighs by how much of the softmax it holds, not half each. Merge the "
            "unnormalised sums and divide once, at the end.",
            _outputs_averaged),
    Mistake("the finished output is returned",
            "o stays the unnormalised sum of exp(score - m) * value: divided by l, it cannot "
            "be merged again. Divide once, after the last merge (the library's finish).",
            lambda a, b: _merged(a, b)[:2] + (_output(_merged(a, b)),)),
)


def _library():
    """The online softmax the notebook imports, and every function of attention."""
    own = [f for f in vars(attention).values() if inspect.isfunction(f)
           and f.__module__ == attention.__name__]
    return (partial, merge, finish, *own)


def _refuse(seen, name, what):
    if seen.called:
        raise Wrong(f"your merge_partials calls the library's reference ({name}); write the "
                    f"steps yourself with NumPy: the checker compares your answer with {what}")


def _label(case):
    return f"merge_partials(a, b) on the case '{case.name}'"


def _read(result, case):
    """The (m, l, o) ``result`` holds as float64 arrays, or :class:`Wrong`."""
    label, (rows, dim) = _label(case), case.want[2].shape
    if result is None:
        raise Wrong(f"{label} returned None: end your function with `return m, l, o`")
    whole = isinstance(result, np.ndarray) or hasattr(result, "asnumpy")
    if whole and tuple(result.shape) == (rows, dim):
        raise Wrong(f"{label} returned one array of shape {(rows, dim)}, the finished output "
                    f"o / l; return the partial (m, l, o), so that it can be merged again")
    if whole or not isinstance(result, (tuple, list)):
        kind = type(result).__name__ + (f" of shape {tuple(result.shape)}" if whole else "")
        raise Wrong(f"{label} returned a {kind}; return the partial (m, l, o): a tuple of "
                    f"three NumPy arrays")
    if len(result) != 3:
        raise Wrong(f"{label} returned {len(result)} items; return three, the partial "
                    f"(m, l, o), in that order")
    mxnet = next((name for name, x in zip("mlo", result) if hasattr(x, "asnumpy")), None)
    if mxnet:
        raise Wrong(f"{label} returned an MXNet NDArray for {mxnet}; the partials here are "
                    f"float64 NumPy arrays: compute with NumPy and return NumPy arrays")
    shapes = ((rows,), (rows,), (rows, dim))
    return tuple(as_array(item, label, shape, name, finite=False)
                 for item, shape, name in zip(result, shapes, "mlo"))


def _outcome(merge_partials, case, kept):
    """What ``merge_partials`` returns on ``case``; ``kept`` notes if its input stayed."""
    a, b = case.a, case.b
    given = tuple(tuple(x.copy() for x in side) for side in (a, b))
    result = call(merge_partials, _label(case), *given)
    kept.append(all(np.array_equal(x, y) for s, t in zip(given, (a, b)) for x, y in zip(s, t)))
    return result


def _like(got, mistaken):
    """A mistake's outputs agree with the answer's, case by case (any inf or nan alike)."""
    def alike(arrays):
        return tuple(np.where(np.isfinite(x), x, np.nan) for x in arrays)
    return all(same(alike(g), alike(w)) for g, w in zip(got, mistaken))


@checker("merge_partials", "merge_partials(a, b) with two partials (m, l, o) of NumPy "
                           "arrays, returning the merged partial (m, l, o)")
def check_merge_partials(merge_partials):
    """``merge_partials(a, b)``: the online softmax's merge of two partials."""
    cases = CASES + _drawn_cases(case_rng(merge_partials))
    kept = []
    with watching(*_library()) as library, watching(_merged) as own, \
            np.errstate(all="ignore"):
        results = [_outcome(merge_partials, case, kept) for case in cases]
    _refuse(library, "tutorial.sequence's online softmax or attention", "what it computes")
    got = [_read(result, case) for result, case in zip(results, cases)]
    with np.errstate(all="ignore"):
        wrong = next(filter(None, (_difference(g, c) for g, c in zip(got, cases))), None)
        mistake = wrong and first_match(MISTAKES, got, lambda answer: [
            answer(c.a, c.b) for c in cases], agree=_like)
    changed = ("your function changed the partials it was given (an in-place `*=` does "
               "that), and the caller may still need them: compute new arrays instead")
    if wrong is None:
        _refuse(own, "this checker's _merged", "that very function")   # a mistake put right
        if not all(kept):
            raise Wrong(f"your merged partials are right, but {changed}")
        return Verdict(True, f"Correct: on all {len(cases)} cases m is the largest score, m + "
                             f"log(l) the log-sum-exp and o / l the attention output over both "
                             f"sets of keys, also with scores near 1000 and -1000 and a side "
                             f"that saw no key, and the partials passed in stay unchanged.")
    also = "" if all(kept) else f" Also, {changed}."
    if mistake:
        return Verdict(False, mistake.verdict().text + also)
    raise Wrong(wrong + "." + also)


def _shown(values):                     # enough digits to see a difference of 1e-6
    if np.ndim(values) == 0:
        return f"{values:.10g}"
    return "[" + ", ".join(f"{v:.8g}" for v in values) + "]"


def _difference(got, case):
    """What is wrong with the answer's (m, l, o) on ``case``, in one sentence, or None."""
    (m, l, o), (want_m, want_l, want_o) = got, case.want
    for name, array in zip("mlo", got):
        if not np.all(np.isfinite(array)):
            row = np.argwhere(~np.isfinite(array))[0][0]
            return (f"{_label(case)} returned {name} = {_shown(array[row])} in row {row}: exp "
                    f"of a large number overflows float64 (inf above about 709, and inf - inf "
                    f"or 0 * inf is nan); take exp only of numbers at most 0")
    near = lambda x, y: same(x, y, rtol=0, atol=LOG_SUM_EXP_ATOL)       # noqa: E731
    checks = (
        ("m", m, want_m, near, "the largest score either side saw"),
        ("m + log(l)", m + np.log(l), want_m + np.log(want_l), near,
         "the log-sum-exp of all the scores of both sides: l must sum exp(score - m) over "
         "the keys of both, for the new m"),
        ("o / l", o / l[:, None], want_o / want_l[:, None], same,
         "the attention output over both sets of keys: o must sum exp(score - m) * value "
         "over the keys of both, for the new m"))
    for what, value, want, close, meaning in checks:
        if not close(value, want):
            row = next(i for i in range(len(want)) if not close(value[i], want[i]))
            return (f"{_label(case)} gives {what} = {_shown(value[row])} in row {row}, "
                    f"expected {_shown(want[row])}, {meaning}")
    return None
