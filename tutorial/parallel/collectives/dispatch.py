"""``allreduce(arrays, algorithm)``: pick a schedule, run it on the arrays, return both;
``bind(out, algorithm)``: the same bound to output arrays, to be called every step.

>>> import mxnet as mx
>>> xs = [mx.nd.array([1, 2, 3], ctx=mx.cpu(i)) * (i + 1) for i in range(3)]
>>> out = allreduce(xs, "ring")
>>> out.arrays[2].asnumpy().tolist(), out.arrays[2].context
([6.0, 12.0, 18.0], cpu(2))
>>> len(out.steps), out.steps[0].phase
(4, 'reduce-scatter')
"""

import dataclasses
import functools
from typing import List, Tuple

import mxnet as mx
import numpy as np

from . import butterfly, ps, ring, tree
from .execute import BoundSchedule, as_ndarray_list, run_schedule
from .schedule import Schedule, Step

SCHEDULES = {"ps": ps.schedule, "tree": tree.schedule,
             "butterfly": butterfly.schedule, "ring": ring.schedule}
# The algorithms' names, in the deck's order: the one list that aggregation, the cost model,
# the measurements and the animations read.
ALGORITHMS = tuple(SCHEDULES)
OPTIONS = {"ps": ("servers",), "tree": (), "butterfly": (), "ring": ()}


@functools.lru_cache(maxsize=1024)
def _cached_schedule(algorithm, num_nodes, length, itemsize, options):
    return SCHEDULES[algorithm](num_nodes, length, itemsize, **dict(options))


def schedule(algorithm, num_nodes, length, itemsize=4, **options):
    """The (pure, cached) schedule of ``algorithm`` for ``num_nodes`` arrays of ``length`` elements."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}: choose one of "
                         f"{', '.join(map(repr, ALGORITHMS))}")
    unknown = sorted(set(options) - set(OPTIONS[algorithm]))
    if unknown:
        allowed = ", ".join(OPTIONS[algorithm]) or "none"
        raise ValueError(f"option {unknown[0]!r} does not apply to {algorithm!r} "
                         f"(its options: {allowed}); only 'ps' takes servers=S")
    for name, value in (("num_nodes", num_nodes), ("length", length), ("itemsize", itemsize)):
        if not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
    return _cached_schedule(algorithm, int(num_nodes), int(length), int(itemsize),
                            tuple(sorted(options.items())))


@dataclasses.dataclass(frozen=True)
class AllreduceResult:
    """The sum on every input's context, and the schedule that produced it."""
    arrays: List[mx.nd.NDArray]
    schedule: Schedule

    @property
    def steps(self) -> Tuple[Step, ...]:
        return self.schedule.steps


def allreduce(arrays, algorithm, **options):
    """Sum ``arrays`` (one NDArray per device) with ``algorithm``: 'ps', 'tree', 'butterfly' or 'ring'.

    ``result.arrays[i]`` is the sum on ``arrays[i].context``; the inputs are not modified.
    ``result.steps`` is the schedule that moved the data. 'ps' takes ``servers=S``.
    To sum the same parameter every step without allocating, use :func:`bind`.
    """
    arrays = as_ndarray_list(arrays)
    plan = _plan(arrays, algorithm, options)
    return AllreduceResult(run_schedule(arrays, plan), plan)


def bind(arrays, algorithm, out=None, peer_reads=None, **options):
    """A :class:`~.execute.BoundSchedule`: ``bound()`` sums ``arrays`` into ``out``.

    Its buffers are allocated here, once; without ``out`` it sums ``arrays`` in place.
    ``peer_reads``: see :class:`~.execute.BoundSchedule` (None: on CPU contexts).

    >>> import mxnet as mx
    >>> grads = [mx.nd.ones(3, ctx=mx.cpu(i)) for i in range(4)]
    >>> bound = bind(grads, "ring")
    >>> bound()[3].asnumpy().tolist(), grads[0].asnumpy().tolist()
    ([4.0, 4.0, 4.0], [4.0, 4.0, 4.0])
    """
    arrays = as_ndarray_list(arrays)
    out = arrays if out is None else as_ndarray_list(out)
    if [(o.shape, o.dtype, o.context) for o in out] != [
            (a.shape, a.dtype, a.context) for a in arrays]:
        raise ValueError("out must hold one array per input with its shape, dtype and "
                         "context (the sum lands on every input's device)")
    return BoundSchedule(_plan(arrays, algorithm, options), arrays, out, peer_reads)


def _plan(arrays, algorithm, options):
    return schedule(algorithm, len(arrays), arrays[0].size,
                    np.dtype(arrays[0].dtype).itemsize, **options)
