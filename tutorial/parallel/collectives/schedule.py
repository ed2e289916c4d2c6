"""A collective's schedule as data: who sends which chunk to whom at each step.

Every algorithm in this package is a pure function ``(num_nodes, length, itemsize)
-> Schedule``. The same schedule is executed on real NDArrays
(:mod:`~tutorial.parallel.collectives.execute`), priced by the cost model
(:mod:`tutorial.parallel.costmodel`), drawn by the animation and asserted by the tests.

Semantics of one :class:`Step`: every transfer in it happens at the same time, so all
senders send what they held *before* the step, then every receiver either adds the
chunk into its own copy (``op='add'``) or overwrites its copy with it (``op='copy'``).

>>> chunk_bounds(10, 4)          # uneven: the first 10 % 4 chunks get one element more
((0, 3), (3, 6), (6, 8), (8, 10))
>>> chunk_bounds(2, 4)           # fewer elements than parts: some chunks are empty
((0, 1), (1, 2), (2, 2), (2, 2))
"""

import dataclasses
from typing import Tuple

OPS = ("add", "copy")


@dataclasses.dataclass(frozen=True)
class Transfer:
    """One message: ``source`` sends elements ``start:stop`` (chunk ``chunk``) to ``destination``."""
    source: int
    destination: int
    chunk: int        # index into Schedule.chunks
    start: int        # first element (of the flattened array)
    stop: int         # one past the last element
    nbytes: int       # (stop - start) * itemsize
    op: str           # 'add': receiver adds it to its copy; 'copy': receiver overwrites

    def __post_init__(self):
        if self.op not in OPS:
            raise ValueError(f"op must be one of {OPS}, got {self.op!r}")
        if self.source == self.destination:
            raise ValueError(f"node {self.source} cannot send to itself")


@dataclasses.dataclass(frozen=True)
class Step:
    """Transfers that happen at the same time, in one phase of the algorithm."""
    phase: str                       # e.g. 'reduce-scatter', 'all-gather', 'push', 'pull'
    transfers: Tuple[Transfer, ...]


@dataclasses.dataclass(frozen=True)
class Schedule:
    """The whole plan of one allreduce."""
    algorithm: str
    num_nodes: int
    length: int                      # elements per node (flattened)
    itemsize: int                    # bytes per element
    chunks: Tuple[Tuple[int, int], ...]   # (start, stop) of each chunk
    steps: Tuple[Step, ...]

    @property
    def nbytes(self):
        """Bytes of one node's array."""
        return self.length * self.itemsize


def chunk_bounds(length, parts):
    """Split ``range(length)`` into ``parts`` contiguous chunks whose sizes differ by <= 1."""
    base, extra = divmod(length, parts)
    bounds, start = [], 0
    for i in range(parts):
        stop = start + base + (1 if i < extra else 0)
        bounds.append((start, stop))
        start = stop
    return tuple(bounds)


def make_transfer(source, destination, chunk, chunks, itemsize, op):
    """A :class:`Transfer` of chunk ``chunk``, or None when that chunk is empty."""
    start, stop = chunks[chunk]
    if stop == start:
        return None
    return Transfer(source, destination, chunk, start, stop, (stop - start) * itemsize, op)


def make_step(phase, transfers):
    """A :class:`Step` of the non-empty transfers (empty chunks are never sent)."""
    return Step(phase, tuple(t for t in transfers if t is not None))


def bytes_sent(schedule):
    """Bytes each node sends over the whole schedule (a list, one entry per node)."""
    sent = [0] * schedule.num_nodes
    for step in schedule.steps:
        for t in step.transfers:
            sent[t.source] += t.nbytes
    return sent


def bytes_received(schedule):
    """Bytes each node receives over the whole schedule."""
    received = [0] * schedule.num_nodes
    for step in schedule.steps:
        for t in step.transfers:
            received[t.destination] += t.nbytes
    return received
