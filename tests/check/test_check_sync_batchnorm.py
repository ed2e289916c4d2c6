"""The SyncBatchNorm-statistics checker: right answers pass, each usual mistake is named,
and the reference is the statistics of the concatenated shards (also MXNet's BatchNorm)."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd

from instructor import solutions
from tutorial.check import sync_batchnorm as sb
from tutorial.check.mistakes import same


def test_the_instructor_solution_passes():
    verdict = sb.check_sync_mean_var(solutions.sync_mean_var)
    assert verdict.correct, verdict.text


def test_a_chan_style_pairwise_merge_passes_too():
    def merged(means, variances, counts):
        m, v, n = means[0], variances[0], counts[0]
        for m2, v2, n2 in zip(means[1:], variances[1:], counts[1:]):
            delta, total = m2 - m, n + n2
            m, v, n = m + delta * n2 / total, (n * v + n2 * v2 + delta ** 2 * n * n2 / total) / total, total
        return m, v
    assert sb.check_sync_mean_var(merged).correct


@pytest.mark.parametrize("mistake", sb.MISTAKES, ids=lambda m: m.what)
def test_every_mistake_is_named(mistake):
    verdict = sb.check_sync_mean_var(mistake.answer)
    assert not verdict.correct and mistake.what in verdict.text


@pytest.mark.parametrize("mistake", sb.MISTAKES, ids=lambda m: m.what)
def test_every_mistake_is_wrong_on_some_case(mistake):
    got = [mistake.answer(*sb._inputs(shards)) for _, shards in sb.CASES]
    want = [sb.whole_batch(shards) for _, shards in sb.CASES]
    assert not sb._agree(got, want)


@pytest.mark.parametrize("case", sb.CASES, ids=lambda c: c[0])
def test_the_reference_is_what_mxnet_batchnorm_normalises_with(case):
    _, shards = case
    batch = np.concatenate(shards)
    mean, var = sb.whole_batch(shards)
    c = batch.shape[1]
    with autograd.record():
        out = mx.nd.BatchNorm(mx.nd.array(batch), mx.nd.ones(c), mx.nd.zeros(c), mx.nd.zeros(c),
                              mx.nd.ones(c), eps=1e-5, fix_gamma=False).asnumpy()
    ours = (batch - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    assert same(out, ours, rtol=1e-4, atol=1e-4)


def test_an_unexplained_answer_points_to_the_case():
    verdict = sb.check_sync_mean_var(lambda m, v, c: (m[0], v[0]))
    assert not verdict.correct and "on the case" in verdict.text


def test_the_modules_docstring_shows_no_answer_that_passes():
    import doctest
    namespace = {}
    for example in doctest.DocTestParser().get_examples(sb.__doc__):
        if example.source.startswith(("def ", "import ")):
            exec(example.source, vars(sb).copy() | namespace, namespace)
    shown = [f for f in namespace.values() if callable(f) and getattr(f, "__code__", None)]
    assert shown, "the docstring should still show a mistake being named"
    assert not any(sb.check_sync_mean_var(f).correct for f in shown)
