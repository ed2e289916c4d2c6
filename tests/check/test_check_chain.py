"""The chain-allreduce exercise checker: right schedules pass, each mistake is named, and
a schedule that sums correctly but is not a chain is refused with the reason."""

import pytest

from tutorial.check.collectives import check_chain
from tutorial.parallel.collectives import Schedule, Step, Transfer, problems, schedule


def build(num_nodes, length, itemsize, back, op="copy", group=False, nbytes=None):
    """The chain's reduce, then ``back``: a list of (source, destination) pairs."""
    nbytes = length * itemsize if nbytes is None else nbytes
    steps = [Step("reduce", (Transfer(i, i + 1, 0, 0, length, nbytes, "add"),))
             for i in range(num_nodes - 1)]
    moves = [Transfer(s, d, 0, 0, length, nbytes, op) for s, d in back]
    steps += [Step("broadcast", tuple(moves))] if group else [Step("broadcast", (t,))
                                                              for t in moves]
    return Schedule("chain", num_nodes, length, itemsize, ((0, length),), tuple(steps))


def right(num_nodes, length, itemsize=4):
    return build(num_nodes, length, itemsize,
                 [(i, i - 1) for i in range(num_nodes - 1, 0, -1)])


def test_a_right_chain_passes_and_really_sums():
    assert check_chain(right).correct
    assert problems(right(6, 10)) == [] and len(right(6, 10).steps) == 2 * 5


@pytest.mark.parametrize("back, op, what", [
    (lambda n: [], "copy", "no way back"),
    (lambda n: [(i, i - 1) for i in range(n - 1, 0, -1)], "add", "adding on the way back"),
    (lambda n: [(i, i + 1) for i in range(n - 1)], "copy", "way back in the wrong direction"),
    (lambda n: [(i, i - 1) for i in range(n - 1, 1, -1)], "copy", "node 0 left out"),
])
def test_each_typical_mistake_is_named(back, op, what):
    verdict = check_chain(lambda n, length, itemsize=4: build(n, length, itemsize, back(n), op))
    assert not verdict.correct and verdict.text.startswith(f"Not yet: {what}:"), verdict.text


def test_a_sum_that_is_not_a_chain_is_refused():
    pull_at_once = check_chain(lambda n, length, itemsize=4: build(
        n, length, itemsize, [(n - 1, i) for i in range(n - 1)], group=True))
    assert "holds" in pull_at_once.text and "one message moves per step" in pull_at_once.text
    far = check_chain(lambda n, length, itemsize=4: build(
        n, length, itemsize, [(n - 1, i) for i in range(n - 2, -1, -1)]))
    assert "only talks to its neighbours" in far.text
    tree = check_chain(lambda n, length, itemsize=4: schedule("tree", n, length, itemsize))
    assert not tree.correct


def test_wrong_bytes_and_extra_steps_are_named():
    fixed_bytes = check_chain(lambda n, length, itemsize=4: build(
        n, length, itemsize, [(i, i - 1) for i in range(n - 1, 0, -1)], nbytes=4 * length))
    assert "nbytes is (stop - start) * itemsize" in fixed_bytes.text
    twice = check_chain(lambda n, length, itemsize=4: build(
        n, length, itemsize, [(i, i - 1) for i in range(n - 1, 0, -1)] + [(1, 0)]))
    assert "more than it needs" in twice.text


def test_an_unlisted_mistake_reports_the_first_problem():
    # the way back starts one node too early, at N-2, which holds only a partial sum
    verdict = check_chain(lambda n, length, itemsize=4: build(
        n, length, itemsize, [(i, i - 1) for i in range(n - 2, 0, -1)]))
    assert verdict.text.startswith("Not yet: after chain(2, 8): node 0, chunk 0: missing "
                                   "node 1's data"), verdict.text


def test_not_a_schedule_and_bad_nodes_get_clear_messages():
    listed = check_chain(lambda n, length, itemsize=4: [])
    assert "returned a list; return a Schedule" in listed.text
    assert "cannot be replayed" in check_chain(lambda n, length, itemsize=4: build(
        n, length, itemsize, [(n, 0)])).text
    one_more = check_chain(lambda n, length, itemsize=4: right(n + 1, length))
    assert "keep the cell's" in one_more.text
