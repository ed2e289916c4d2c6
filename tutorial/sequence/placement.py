"""Which positions of the sequence each device holds, and the causal mask's work on each.

With a causal mask query i attends to keys 0..i: i + 1 query-key pairs. Cut the sequence
into K contiguous slices (the *plain* placement, the course's
:func:`~tutorial.parallel.collectives.schedule.chunk_bounds`) and the last device has the
most work, the first the least. The *zig-zag* placement cuts it into 2K chunks and gives
device d chunks d and 2K - 1 - d, one early and one late: every device then does the same
work when 2K divides the length (the zig-zag of ring-flash-attention, also Llama 3's
context parallelism; Brandon et al. 2023's "Striped attention" balances it by another
permutation, position i on device i mod K).

Eight positions on two devices, worked by hand (work = sum of i + 1 over its queries):

>>> [h.ranges for h in place(8, 2, "plain")]
[((0, 4),), ((4, 8),)]
>>> causal_work(place(8, 2, "plain"))         # 1+2+3+4, 5+6+7+8
[10, 26]
>>> [h.ranges for h in place(8, 2, "zigzag")]
[((0, 2), (6, 8)), ((2, 4), (4, 6))]
>>> causal_work(place(8, 2, "zigzag"))        # 1+2+7+8, 3+4+5+6
[18, 18]
>>> imbalance([10, 26]), imbalance([18, 18])
(1.4444444444444444, 1.0)
"""

from typing import NamedTuple, Tuple

import numpy as np

from tutorial.parallel.collectives.schedule import chunk_bounds
from tutorial.validate import check_count

PLACEMENTS = ("plain", "zigzag")


class Held(NamedTuple):
    """The positions ``device`` holds: the (start, stop) ranges, in this order."""
    device: int
    ranges: Tuple[Tuple[int, int], ...]

    @property
    def positions(self):
        """Its positions in the sequence, in the order its arrays hold them."""
        return np.concatenate([np.arange(a, b) for a, b in self.ranges])

    @property
    def size(self):
        return sum(b - a for a, b in self.ranges)


def check_devices(seq_len, num_devices):
    """``(seq_len, num_devices)`` as ints if every device can hold at least one position."""
    seq_len = check_count("seq_len", seq_len)
    num_devices = check_count("num_devices", num_devices, what="devices on the ring")
    if num_devices > seq_len:
        raise ValueError(f"num_devices={num_devices} is larger than the sequence ({seq_len} "
                         f"positions): use at most {seq_len} devices, so that each holds at "
                         f"least one position")
    return seq_len, num_devices


def place(seq_len, num_devices, placement="plain"):
    """One :class:`Held` per device: 'plain' (K contiguous slices) or 'zigzag'."""
    seq_len, k = check_devices(seq_len, num_devices)
    if placement == "plain":
        return tuple(Held(d, (bounds,)) for d, bounds in enumerate(chunk_bounds(seq_len, k)))
    if placement == "zigzag":
        chunks = chunk_bounds(seq_len, 2 * k)
        pairs_of_chunks = ((chunks[d], chunks[2 * k - 1 - d]) for d in range(k))
        return tuple(Held(d, tuple(c for c in both if c[1] > c[0]))      # leave out empty ones
                     for d, both in enumerate(pairs_of_chunks))
    raise ValueError(f"placement must be one of {PLACEMENTS}, got {placement!r}")


def pairs(query_positions, key_positions, causal=True):
    """How many (query, key) pairs attend: key <= query under the causal mask."""
    q, k = np.asarray(query_positions), np.asarray(key_positions)
    if not causal:
        return int(q.size * k.size)
    return int(np.searchsorted(np.sort(k), q, side="right").sum())


def causal_work(held):
    """Query-key pairs each device computes under the causal mask: sum of (i + 1) over
    its queries i, as every query attends to the keys 0..i wherever they are held."""
    return [int((h.positions + 1).sum()) for h in held]


def imbalance(work):
    """The busiest device's work over the mean: 1.0 is balanced."""
    return max(work) / (sum(work) / len(work))
