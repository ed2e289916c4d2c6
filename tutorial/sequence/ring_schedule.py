"""Ring attention's schedule as data: which key/value block each device holds at each step.

Context parallelism (Liu et al. 2023, "Ring attention"): each of K devices holds a slice
of the sequence's queries, keys and values (:func:`~tutorial.sequence.placement.place`).
Its queries must see every key, so the key/value blocks travel the ring, as the chunks of
the course's ring allreduce do: at step s device d holds block (d - s) mod K (the block
that started on that device), attends to it, and passes it to device (d + 1) mod K. After
K steps, K - 1 of them followed by a send, every query has seen every key.

Under a causal mask a block can be *unmasked* (all its keys come before the queries),
*partly masked* (the diagonal: some pairs set aside) or *fully masked* (all its keys come
after: the device skips it, but still passes it on). Plain placement, four positions on
two devices (device 0 holds 0-1, device 1 holds 2-3), one byte per position:

>>> plan = schedule(4, 2, causal=True, position_bytes=1)
>>> [(w.device, w.block, w.mask, w.pairs, w.sends_to, w.nbytes) for w in plan.steps[0]]
[(0, 0, 'partly masked', 3, 1, 2), (1, 1, 'partly masked', 3, 0, 2)]
>>> [(w.device, w.block, w.mask, w.pairs, w.sends_to, w.nbytes) for w in plan.steps[1]]
[(0, 1, 'fully masked', 0, None, 0), (1, 0, 'unmasked', 4, None, 0)]
>>> bytes_sent(plan), work(plan), critical_path(plan)
([2, 2], [3, 7], 7)
"""

import dataclasses
from typing import Optional, Tuple

from tutorial.sequence.placement import Held, pairs, place
from tutorial.validate import check_count, check_flag

UNMASKED, PARTLY, FULLY = "unmasked", "partly masked", "fully masked"


@dataclasses.dataclass(frozen=True)
class Tile:
    """One contiguous range of a device's queries against one range of the block's keys:
    the unit the executor computes (a tile whose pairs are all masked is left out)."""
    rows: Tuple[int, int]      # (start, stop) among the device's query rows, as it holds them
    cols: Tuple[int, int]      # (start, stop) among the block's key rows
    mask: str                  # UNMASKED or PARTLY

    @property
    def area(self):
        """Query-key pairs the tile computes, masked ones included."""
        return (self.rows[1] - self.rows[0]) * (self.cols[1] - self.cols[0])


@dataclasses.dataclass(frozen=True)
class Work:
    """What one device does in one step of the ring."""
    device: int
    block: int                 # whose keys and values it holds: the device they started on
    mask: str                  # UNMASKED, PARTLY or FULLY (then it computes nothing)
    pairs: int                 # query-key pairs that attend (0 when fully masked)
    sends_to: Optional[int]    # where the block goes after this step (None: the last step)
    nbytes: int                # bytes of keys and values it sends (0 at the last step)
    tiles: Tuple[Tile, ...] = ()   # what it computes: its ranges against the block's


@dataclasses.dataclass(frozen=True)
class RingSchedule:
    """The whole plan of one ring attention."""
    seq_len: int
    placement: str             # 'plain' or 'zigzag'
    causal: bool
    position_bytes: int        # bytes of one position's keys and values
    held: Tuple[Held, ...]     # the positions each device holds (queries, keys and values)
    steps: Tuple[Tuple[Work, ...], ...]   # steps[s][d]: device d at step s

    @property
    def num_devices(self):
        return len(self.held)


def kv_bytes_per_position(batch, heads, head_dim, itemsize=4, value_dim=None):
    """Bytes of one position's key and value: 2 x batch x heads x head_dim x itemsize
    (batch x heads x (head_dim + value_dim) x itemsize when the values are wider)."""
    value_dim = head_dim if value_dim is None else value_dim
    return batch * heads * (head_dim + value_dim) * itemsize


def mask_kind(count, queries, keys):
    """UNMASKED, PARTLY or FULLY, from the pairs that attend out of queries x keys."""
    return UNMASKED if count == queries * keys else FULLY if count == 0 else PARTLY


def row_ranges(held):
    """(start, stop) of each of ``held``'s ranges among the rows its arrays hold."""
    out, row = [], 0
    for a, b in held.ranges:
        out.append((row, row + b - a))
        row += b - a
    return out


def tiles(queries, keys, causal):
    """The :class:`Tile` s of ``queries``' ranges against ``keys``' ranges (two Held) that
    hold a pair that attends. Plain placement: one tile, or none when fully masked.
    Zig-zag: a device's early and late chunk against the block's two chunks, where under
    the causal mask about half the tiles are masked whole, so half the work is skipped."""
    found = []
    for (qa, qb), rows in zip(queries.ranges, row_ranges(queries)):
        for (ka, kb), cols in zip(keys.ranges, row_ranges(keys)):
            kind = mask_kind(pairs(range(qa, qb), range(ka, kb), causal), qb - qa, kb - ka)
            if kind != FULLY:
                found.append(Tile(rows, cols, kind))
    return tuple(found)


def schedule(seq_len, num_devices, causal=False, placement="plain", position_bytes=8):
    """The :class:`RingSchedule` of ``seq_len`` positions on ``num_devices`` devices."""
    causal = check_flag("causal", causal)
    held = place(seq_len, num_devices, placement)
    size = check_count("position_bytes", position_bytes)
    k = len(held)
    steps = []
    for s in range(k):
        last = s == k - 1
        step = []
        for d in range(k):
            b = (d - s) % k
            count = pairs(held[d].positions, held[b].positions, causal)
            sends_to, nbytes = (None, 0) if last else ((d + 1) % k, held[b].size * size)
            step.append(Work(d, b, mask_kind(count, held[d].size, held[b].size), count,
                             sends_to, nbytes, tiles(held[d], held[b], causal)))
        steps.append(tuple(step))
    return RingSchedule(sum(h.size for h in held), placement, bool(causal), size, held,
                        tuple(steps))


def bytes_sent(plan):
    """Bytes each device sends over the whole ring (a list, one entry per device)."""
    return [sum(step[d].nbytes for step in plan.steps) for d in range(plan.num_devices)]


def work(plan):
    """Query-key pairs that attend on each device over the whole ring (:func:`computed`
    counts the pairs it computes, partly masked tiles whole)."""
    return [sum(step[d].pairs for step in plan.steps) for d in range(plan.num_devices)]


def computed(plan):
    """Query-key pairs each device computes, masked ones inside its tiles included: what
    its time follows (:mod:`tutorial.sequence.ring_timing` measures it)."""
    return [sum(t.area for step in plan.steps for t in step[d].tiles)
            for d in range(plan.num_devices)]


def critical_path(plan):
    """Pairs on the critical path: each step lasts as long as its busiest device."""
    return sum(max(w.pairs for w in step) for step in plan.steps)
