"""Exercise checker for notebook 06_allreduce: the schedule of a chain allreduce.

The learner writes ``chain(num_nodes, length, itemsize=4) -> Schedule``: node 0 sends its
vector to node 1, which adds and passes the sum on to node N-1; then the total travels
back down the chain by copies. The checker replays the schedule for several N with
:func:`tutorial.parallel.collectives.contributions` (who holds whose data after each
step): every node must end with everyone's data exactly once, each message must go
between neighbours, one message per step, and carry the bytes of its chunk.

>>> from tutorial.parallel.collectives import Schedule, Step, Transfer
>>> def reduce_only(num_nodes, length, itemsize=4):
...     steps = [Step("reduce", (Transfer(i, i + 1, 0, 0, length, length * itemsize, "add"),))
...              for i in range(num_nodes - 1)]
...     return Schedule("chain", num_nodes, length, itemsize, ((0, length),), tuple(steps))
>>> print(check_chain(reduce_only).text)
Not yet: no way back: only node N-1 ends with the sum. Send it back down the chain, from node N-1 to node 0, with "copy" transfers.
"""

import numpy as np

from tutorial.check.answers import Wrong, call
from tutorial.check.feedback import Verdict, checker
from tutorial.check.mistakes import Mistake, first_match
from tutorial.parallel.collectives import Schedule, Step, Transfer, contributions, problems

CASES = ((2, 8), (3, 5), (5, 8), (8, 3))     # (num_nodes, length)


def _plan(num_nodes, length, itemsize, back):
    """The chain's reduce, then the ``back`` transfers, one step each: (source, dest, op)."""
    nbytes = length * itemsize
    steps = [Step("reduce", (Transfer(i, i + 1, 0, 0, length, nbytes, "add"),))
             for i in range(num_nodes - 1)]
    steps += [Step("broadcast", tuple(Transfer(s, d, 0, 0, length, nbytes, op)
                                      for s, d, op in group)) for group in back]
    return Schedule("chain", num_nodes, length, itemsize, ((0, length),), tuple(steps))


MISTAKES = (
    Mistake("no way back", 'only node N-1 ends with the sum. Send it back down the chain, from '
                           'node N-1 to node 0, with "copy" transfers.',
            lambda n, length, itemsize=4: _plan(n, length, itemsize, [])),
    Mistake("adding on the way back",
            'a node that receives the total must overwrite its partial sum ("copy"); adding '
            'counts some nodes\' data twice.',
            lambda n, length, itemsize=4: _plan(
                n, length, itemsize, [[(i, i - 1, "add")] for i in range(n - 1, 0, -1)])),
    Mistake("way back in the wrong direction",
            "after the reduce the total sits at node N-1, so the way back starts there.",
            lambda n, length, itemsize=4: _plan(
                n, length, itemsize, [[(i, i + 1, "copy")] for i in range(n - 1)])),
    Mistake("node 0 left out", "the way back must reach node 0 too.",
            lambda n, length, itemsize=4: _plan(
                n, length, itemsize, [[(i, i - 1, "copy")] for i in range(n - 1, 1, -1)])),
)


def _run(chain, num_nodes, length, itemsize=4):
    label = f"chain({num_nodes}, {length}, itemsize={itemsize})"
    plan = call(chain, label, num_nodes, length, itemsize)
    if not isinstance(plan, Schedule):
        raise Wrong(f"{label} returned a {type(plan).__name__}; return a Schedule(...), as the "
                    f"cell's last line does")
    if (plan.num_nodes, plan.length, tuple(plan.chunks)) != (num_nodes, length, ((0, length),)):
        raise Wrong(f"{label} returned a Schedule for num_nodes={plan.num_nodes}, "
                    f"length={plan.length}, chunks={plan.chunks}; keep the cell's "
                    f"Schedule(\"chain\", num_nodes, length, itemsize, ((0, length),), ...)")
    try:
        final = contributions(plan)[-1]
    except Exception as error:         # a transfer naming a node or chunk that is not there
        raise Wrong(f"{label}'s schedule cannot be replayed ({type(error).__name__}: "
                    f"{error}); every transfer must name nodes 0..{num_nodes - 1} and chunk "
                    f"0") from None
    return plan, final


def _check_shape(plan):
    """One message per step, between neighbours, carrying its chunk's bytes."""
    for k, step in enumerate(plan.steps, 1):
        if len(step.transfers) != 1:
            raise Wrong(f"step {k} of chain({plan.num_nodes}, ...) holds "
                        f"{len(step.transfers)} transfers: in a chain one message moves per "
                        f"step, each node waiting for its neighbour's")
        t = step.transfers[0]
        if abs(t.source - t.destination) != 1:
            raise Wrong(f"step {k} sends from node {t.source} to node {t.destination}: in a "
                        f"chain a node only talks to its neighbours")
        if t.nbytes != (t.stop - t.start) * plan.itemsize:
            raise Wrong(f"step {k} carries nbytes={t.nbytes} for elements {t.start}:{t.stop} "
                        f"of itemsize {plan.itemsize}: nbytes is (stop - start) * itemsize")
    if len(plan.steps) > 2 * (plan.num_nodes - 1):
        raise Wrong(f"chain({plan.num_nodes}, ...) takes {len(plan.steps)} steps, more than "
                    f"it needs: some message sends a node what it already holds")


@checker("chain", "chain(num_nodes, length, itemsize=4) with whole numbers, returning a "
                  "Schedule of Steps of Transfers")
def check_chain(chain):
    """``chain(num_nodes, length, itemsize)``: the chain allreduce as a Schedule."""
    runs = [_run(chain, n, length) for n, length in CASES]
    finals = [final for _, final in runs]
    if all(np.all(final == 1) for final in finals):
        for plan, _ in runs + [_run(chain, 5, 8, itemsize=8)]:
            _check_shape(plan)
        return Verdict(True, f"Correct: every node ends with everyone's data exactly once, "
                             f"for {len(CASES)} chain lengths from {CASES[0][0]} to "
                             f"{CASES[-1][0]} nodes.")
    mistake = first_match(
        MISTAKES, finals, lambda wrong: [_run(wrong, n, length)[1] for n, length in CASES],
        agree=lambda a, b: all(np.array_equal(x, y) for x, y in zip(a, b)))
    if mistake:
        return mistake.verdict()
    plan = next(plan for plan, final in runs if not np.all(final == 1))
    found = problems(plan)
    raise Wrong(f"after chain({plan.num_nodes}, {plan.length}): {found[0]}"
                + (f" (and {len(found) - 1} more problems)" if len(found) > 1 else ""))
