"""The online-softmax merge checker: its truth against float64 NumPy and the library's own
merge, right answers in several forms pass, each typical mistake is named without the
answer, the library's merge is refused, and unusable or unexplained answers get one clear
sentence naming the case."""

import inspect
import math
import random
import re

import mxnet as mx
import numpy as np
import pytest

from instructor import solutions
from instructor.solutions import merge_partials
from mistake_table import mistake_table_tests
from test_check_garbage import gives_away
from tutorial.check.own_work import case_rng
from tutorial.check.sequence import CASES, MISTAKES, _drawn_cases, check_merge_partials
from tutorial.sequence.attention import MASKED
from tutorial.sequence.online_softmax import Partial, finish, merge

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")   # the mistakes overflow


def rounded(partial):           # one merged partial, hashable, 6 decimals (nan and inf kept)
    return tuple(np.round(np.asarray(x, dtype=np.float64), 6).tobytes() for x in partial)


test_the_solution_passes, test_each_mistake_is_named, test_the_cases_tell_every_mistake_apart = \
    mistake_table_tests(check_merge_partials, merge_partials, [(c.a, c.b) for c in CASES],
                        MISTAKES, key=rounded)


def test_the_case_worked_by_hand():
    case = CASES[0]
    assert [x.tolist() for x in case.a] == [[0.0], [1.0], [[6.0]]]
    assert [x.tolist() for x in case.b] == [[1.0], [2.0], [[3.0]]]
    m, l, o = case.want
    assert m.tolist() == [1.0] and l[0] == pytest.approx(2 + math.exp(-1))
    assert o[0, 0] == pytest.approx(3 + 6 * math.exp(-1))
    assert o[0, 0] / l[0] == pytest.approx(2.1991, abs=1e-4)   # online_softmax's docstring


def independent_truth(scores, values):
    """Softmax attention and log-sum-exp of one row set, shifted by the mean, not the max."""
    shifted = np.exp(scores - scores.mean())
    return np.log(shifted.sum()) + scores.mean(), shifted @ values / shifted.sum()


def as_partial(p):                  # the library's Partial of NDArrays, in float64
    return Partial(*(mx.nd.array(x.reshape(len(x), -1), dtype="float64") for x in p))


@pytest.mark.parametrize("case", CASES + _drawn_cases(random.Random(5)), ids=lambda c: c.name)
def test_the_truth_is_what_the_librarys_merge_gives(case):
    m, l, o = case.want
    library = merge(as_partial(case.a), as_partial(case.b))
    np.testing.assert_allclose(library.m.asnumpy()[:, 0], m, rtol=1e-12)
    np.testing.assert_allclose(library.l.asnumpy()[:, 0], l, rtol=1e-12)
    np.testing.assert_allclose(finish(library).asnumpy(), o / l[:, None], rtol=1e-9)
    assert np.all(np.isfinite(m + np.log(l))) and np.all(l >= 1)   # the max's key weighs 1


@pytest.mark.parametrize("index, offset, naive", [(4, 1000, np.inf), (5, -1000, 0.0)])
def test_the_truth_is_attention_computed_without_the_max(index, offset, naive):
    scores = offset + np.array([[0, -2, 3, -1], [-3, 1, 0, -4]], dtype=np.float64)
    values = np.array([[1, 0], [0, 1], [2, -1], [-1, 3]], dtype=np.float64)
    m, l, o = CASES[index].want
    for row in range(2):
        lse, out = independent_truth(scores[row], values)
        assert m[row] + np.log(l[row]) == pytest.approx(lse, abs=1e-9)
        np.testing.assert_allclose(o[row] / l[row], out, rtol=1e-12)
    assert (np.exp(scores) == naive).all()     # exp of a raw score overflows or underflows


@pytest.mark.parametrize("index, row, side", [(2, 0, "a"), (3, 1, "b")])
def test_a_side_that_saw_no_key_leaves_the_other_unchanged(index, row, side):
    case = CASES[index]
    empty, other = (case.a, case.b) if side == "a" else (case.b, case.a)
    assert (empty[0][row], empty[1][row], empty[2][row].tolist()) == (MASKED, 0.0, [0.0, 0.0])
    for got, want in zip(merge_partials(case.a, case.b), other):
        assert np.array_equal(got[row], want[row])
    for got, want in zip(case.want, other):
        np.testing.assert_allclose(got[row], want[row], rtol=1e-12)


def logaddexp_merge(a, b):           # another right way: l from the log-sum-exp
    (m_a, l_a, o_a), (m_b, l_b, o_b) = a, b
    m = np.maximum(m_a, m_b)
    with np.errstate(divide="ignore"):               # log(0) of a side that saw no key
        l = np.exp(np.logaddexp(m_a + np.log(l_a), m_b + np.log(l_b)) - m)
    return m, l, o_a * np.exp(m_a - m)[:, None] + o_b * np.exp(m_b - m)[:, None]


def row_by_row(a, b):                # Python floats, one row at a time, lists returned
    m, l, o = [], [], []
    for row in range(len(a[0])):
        top = max(a[0][row], b[0][row])
        s_a, s_b = math.exp(a[0][row] - top), math.exp(b[0][row] - top)
        m.append(top)
        l.append(a[1][row] * s_a + b[1][row] * s_b)
        o.append([x * s_a + y * s_b for x, y in zip(a[2][row], b[2][row])])
    return m, l, o


@pytest.mark.parametrize("answer", [merge_partials, logaddexp_merge, row_by_row,
                                    lambda a, b: list(merge_partials(b, a))])
def test_right_answers_pass(answer):
    verdict = check_merge_partials(answer)
    assert verdict.correct and verdict.text.startswith("Correct:"), verdict.text


def wraps_the_library(a, b):
    merged = merge(as_partial(a), as_partial(b))
    return merged.m.asnumpy()[:, 0], merged.l.asnumpy()[:, 0], merged.o.asnumpy()


def imports_the_library(a, b):
    from tutorial.sequence import online_softmax
    merged = online_softmax.merge(as_partial(a), as_partial(b))
    return merged.m.asnumpy()[:, 0], merged.l.asnumpy()[:, 0], merged.o.asnumpy()


def touches_attention(a, b):
    from tutorial.sequence import attention
    attention.causal_mask([0], [0])
    return merge_partials(a, b)


@pytest.mark.parametrize("answer", [wraps_the_library, imports_the_library, touches_attention])
def test_the_librarys_online_softmax_and_attention_are_refused(answer):
    verdict = check_merge_partials(answer)
    assert not verdict.correct and "calls the library's reference (tutorial.sequence" in \
        verdict.text, verdict.text


def test_a_mistake_put_right_through_the_checkers_helper_is_refused():
    from tutorial.check.sequence import _merged
    verdict = check_merge_partials(lambda a, b: _merged(a, b))
    assert not verdict.correct and "this checker's _merged" in verdict.text, verdict.text
    assert check_merge_partials(merge_partials).correct                  # the watch is off


def sums_added(a, b):
    return np.maximum(a[0], b[0]), a[1] + b[1], a[2] + b[2]


def upside_down(a, b):
    m = np.maximum(a[0], b[0])
    f_a, f_b = np.exp(m - a[0]), np.exp(m - b[0])
    return m, a[1] * f_a + b[1] * f_b, a[2] * f_a[:, None] + b[2] * f_b[:, None]


def l_forgotten(a, b):
    return merge_partials(a, b)[0], a[1] + b[1], merge_partials(a, b)[2]


def o_forgotten(a, b):
    return merge_partials(a, b)[:2] + (a[2] + b[2],)


def smaller_kept(a, b):
    m = np.minimum(a[0], b[0])
    f_a, f_b = np.exp(a[0] - m), np.exp(b[0] - m)
    return m, a[1] * f_a + b[1] * f_b, a[2] * f_a[:, None] + b[2] * f_b[:, None]


def raw_exp(a, b):
    e_a, e_b = np.exp(a[0]), np.exp(b[0])
    return np.maximum(a[0], b[0]), a[1] * e_a + b[1] * e_b, \
        a[2] * e_a[:, None] + b[2] * e_b[:, None]


def averaged(a, b):
    m, l, o = merge_partials(a, b)
    outputs = [p[2] / p[1][:, None] for p in (a, b)]
    return m, l, (outputs[0] + outputs[1]) / 2 * l[:, None]


def finished(a, b):
    m, l, o = merge_partials(a, b)
    return m, l, o / l[:, None]               # the output, where the partial's o belongs


@pytest.mark.parametrize("answer, what", [
    (sums_added, "sums added without rescaling"), (upside_down, "the factor is upside down"),
    (l_forgotten, "l is not rescaled"), (o_forgotten, "o is not rescaled"),
    (smaller_kept, "the smaller maximum is kept"), (raw_exp, "exp of the raw maxima"),
    (averaged, "the two outputs are averaged"), (finished, "the finished output is returned"),
])
def test_mistakes_written_as_a_learner_would_are_named_without_the_answer(answer, what):
    verdict = check_merge_partials(answer)
    assert not verdict.correct and verdict.text.startswith(f"Not yet: {what}:"), verdict.text
    assert gives_away(verdict.text, "merge_partials") is None, verdict.text


def in_place(a, b):
    m = np.maximum(a[0], b[0])
    f_a, f_b = np.exp(a[0] - m), np.exp(b[0] - m)
    a[1][:] *= f_a
    a[2][:] *= f_a[:, None]
    return m, a[1] + b[1] * f_b, a[2] + b[2] * f_b[:, None]


def right_on_the_fixed_cases_only(a, b):     # a table of CASES made ahead would be as good
    fixed = any(all(np.array_equal(x, y) for x, y in zip(a + b, c.a + c.b)) for c in CASES)
    m, l, o = merge_partials(a, b)
    return (m, l, o) if fixed else (m, l, 1.5 * o)


@pytest.mark.parametrize("answer, phrase", [
    (in_place, "your merged partials are right, but your function changed the partials"),
    (lambda a, b: (*merge_partials(a, b), 0),
     r"case 'one row, by hand' returned 4 items; return three, the partial \(m, l, o\)"),
    (lambda a, b: merge_partials(a, b)[2], r"returned one array of shape \(1, 1\), the finished"),
    (lambda a, b: {"m": 1}, r"returned a dict; return the partial \(m, l, o\)"),
    (lambda a, b: tuple(mx.nd.array(x, dtype="float64") for x in merge_partials(a, b)),
     "returned an MXNet NDArray for m; the partials here are float64 NumPy"),
    (lambda a, b: (merge_partials(a, b)[0][:, None],) + merge_partials(a, b)[1:],
     r"returned m with shape \(1, 1\); it must have shape \(1,\)"),
    (lambda a, b: (merge_partials(a, b)[0], merge_partials(a, b)[1] * 1.01,
                   merge_partials(a, b)[2] * 1.01),
     r"on the case 'one row, by hand' gives m \+ log\(l\) = 1\.87194.* in row 0, expected "
     r"1\.86199.*, the log-sum-exp of all the scores"),
    (lambda a, b: merge_partials(a, b)[:2] + (merge_partials(a, b)[2] + 0.01,),
     r"'one row, by hand' gives o / l = \[2\.2033.*\] in row 0, expected \[2\.1991.*\], the "
     r"attention output over both sets of keys"),
    (lambda a, b: merge_partials(a, b)[:2] + (merge_partials(a, b)[2] * np.inf,),
     r"'one row, by hand' returned o = \[inf\] in row 0: exp of a large number overflows"),
    (right_on_the_fixed_cases_only, r"on the case 'drawn \d' gives o / l = "),
])
def test_unusable_and_unexplained_answers_get_one_sentence_naming_the_case(answer, phrase):
    verdict = check_merge_partials(answer)
    assert not verdict.correct and verdict.text.startswith("Not yet:"), verdict.text
    assert re.search(phrase, verdict.text), verdict.text
    assert verdict.text.count("Not yet") == 1 and verdict.text.endswith(".")
    assert gives_away(verdict.text, "merge_partials") is None, verdict.text


def test_a_mistake_that_also_changes_its_input_is_told_both():
    def sums_added_in_place(a, b):
        a[1][:] += b[1]
        a[2][:] += b[2]
        return np.maximum(a[0], b[0]), a[1], a[2]
    text = check_merge_partials(sums_added_in_place).text
    assert text.startswith("Not yet: sums added without rescaling:") and \
        "Also, your function changed the partials it was given" in text, text


def test_the_drawn_cases_are_one_answers_own_and_reach_scores_in_the_thousands():
    one, other = (lambda a, b: None), (lambda a, b: (a, b))
    draws = [_drawn_cases(case_rng(answer)) for answer in (one, one, other)]
    assert [rounded(c.want) for c in draws[0]] == [rounded(c.want) for c in draws[1]]
    assert [rounded(c.want) for c in draws[0]] != [rounded(c.want) for c in draws[2]]
    many = [c for seed in range(40) for c in _drawn_cases(random.Random(seed))]
    assert max(np.abs(c.want[0]).max() for c in many) > 1000
    assert any((c.a[1] == 0).any() or (c.b[1] == 0).any() for c in many)  # a side saw none
    texts = {check_merge_partials(right_on_the_fixed_cases_only).text for _ in range(2)}
    assert len(texts) == 1


def test_the_solution_states_its_giveaways_and_no_mistake_does():
    bare = "".join(inspect.getsource(solutions.merge_partials).split())
    assert all(p in bare for p in solutions.GIVEAWAYS["merge_partials"])
    assert not any(gives_away(m.verdict().text, "merge_partials") for m in MISTAKES)
