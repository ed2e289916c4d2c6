"""Who holds which slice: the ring's reduce-scatter and all-gather, used on their own.

The ring allreduce of notebook 06 (:func:`tutorial.parallel.collectives.ring.schedule`) is
two phases. After its N - 1 reduce-scatter steps node i holds the full sum of one chunk,
chunk (i + 1) mod N, and nothing else complete; its N - 1 all-gather steps then copy
every node's finished chunk to everyone. A sharded optimizer (ZeRO) stops after the
first phase, updates only the chunk it owns, and runs the second phase on the *weights*.
So the sharding is not a new choice: it is the chunk the ring leaves on each node.

:func:`shards` returns that ownership as data, :func:`phase` cuts one phase out of the
ring's schedule, and :func:`reduce_scatter` / :func:`all_gather` run it on real arrays
with the course's executor.

>>> [(s.device, s.start, s.stop) for s in shards(10, 4)]
[(0, 3, 6), (1, 6, 8), (2, 8, 10), (3, 0, 3)]
>>> [st.phase for st in phase(4, 10, "all-gather").steps]
['all-gather', 'all-gather', 'all-gather']
"""

import dataclasses
from typing import NamedTuple

import mxnet as mx
import numpy as np

from tutorial.parallel.collectives import bytes_sent, schedule
from tutorial.parallel.collectives.schedule import chunk_bounds
from tutorial.parallel.collectives.execute import BoundSchedule

PHASES = ("reduce-scatter", "all-gather")


class Shard(NamedTuple):
    """Elements ``start:stop`` of a flattened array belong to ``device``."""
    device: int
    start: int
    stop: int

    @property
    def size(self):
        return self.stop - self.start


def owner(chunk, num_devices):
    """The node that holds chunk ``chunk`` complete after the ring's reduce-scatter."""
    return (chunk - 1) % num_devices


def shards(length, num_devices):
    """One :class:`Shard` per device, in device order: the ring chunk it owns (the ring's
    chunks, :func:`~tutorial.parallel.collectives.schedule.chunk_bounds`, without building
    its N(N - 1) transfers)."""
    mine = {owner(c, num_devices): bounds
            for c, bounds in enumerate(chunk_bounds(length, num_devices))}
    return [Shard(d, *mine[d]) for d in range(num_devices)]


def phase(num_devices, length, name, itemsize=4):
    """The ring's schedule cut down to its ``name`` phase ('reduce-scatter' or 'all-gather')."""
    if name not in PHASES:
        raise ValueError(f"phase must be one of {PHASES}, got {name!r}")
    ring = schedule("ring", num_devices, length, itemsize)
    return dataclasses.replace(ring, steps=tuple(s for s in ring.steps if s.phase == name))


def _flat(arrays):
    return [a.reshape((-1,)) for a in arrays]


def reduce_scatter(arrays, in_place=False):
    """Sum ``arrays`` (one per device) so that device d ends with the full sum of its shard.

    Returns (the summed shard on each device, bytes each device sent). By default the
    inputs are not changed and the sums are worked out in full-size working copies, whose
    other slices hold partial sums; the shards returned are slices of those copies, so
    each keeps its whole copy alive. ``in_place=True`` works in the inputs themselves
    (they end holding partial sums) and returns copies of the shards: nothing full-size
    is allocated, and the inputs can be let go at once (what ZeRO does with a gradient).
    """
    flats = _flat(arrays)
    plan = phase(len(flats), flats[0].size, "reduce-scatter", np.dtype(flats[0].dtype).itemsize)
    out = flats if in_place else [mx.nd.empty(f.shape, ctx=f.context, dtype=f.dtype)
                                  for f in flats]
    BoundSchedule(plan, flats, out)()
    mine = shards(flats[0].size, len(flats))
    pieces = [o[s.start:s.stop] for o, s in zip(out, mine)]
    return ([p.copy() for p in pieces] if in_place else pieces), bytes_sent(plan)


def all_gather(arrays):
    """In place: every device's own shard of ``arrays`` (full-size, one per device) is
    copied to all the others. Returns the bytes each device sent."""
    flats = _flat(arrays)
    plan = phase(len(flats), flats[0].size, "all-gather", np.dtype(flats[0].dtype).itemsize)
    BoundSchedule(plan, flats, flats)()
    return bytes_sent(plan)


def gather_shards(pieces, shape):
    """Full arrays of ``shape``, one per device, from each device's shard ``pieces[d]``.

    What ZeRO-3 does before a layer's forward or backward. Returns (arrays, bytes sent).
    """
    n = len(pieces)
    length = int(np.prod(shape))
    full = [mx.nd.zeros((length,), ctx=p.context, dtype=p.dtype) for p in pieces]
    for f, p, s in zip(full, pieces, shards(length, n)):
        f[s.start:s.stop] = p
    sent = all_gather(full)
    return [f.reshape(shape) for f in full], sent
