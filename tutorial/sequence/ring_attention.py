"""Ring attention run for real: K contexts, each with its slice of the sequence.

The executor reads a :class:`~tutorial.sequence.ring_schedule.RingSchedule` step by step.
In each step every device attends to the key/value block it holds
(:func:`~tutorial.sequence.online_softmax.partial`, with the causal mask only where the
schedule says "partly masked", skipping "fully masked" blocks) and merges the result
into its running :class:`~tutorial.sequence.online_softmax.Partial`; then every device
passes its block to the next one (``as_in_context``: a real copy between contexts, which
autograd records, so gradients travel the ring backwards). At the end each device
divides (:func:`~tutorial.sequence.online_softmax.finish`) and holds the attention of
its own queries over the whole sequence, without ever holding all the keys at once (a
step needs its own slice and the block it attends to; recorded for autograd, the blocks
it received are kept for the backward pass). On GPUs the send of one block overlaps the
computation on it; here the two take turns, which changes the time but not a number.

CPU contexts ``mx.cpu(i)`` stand in for GPUs. :func:`split_sequence` cuts full arrays
as a placement says, :func:`join_sequence` puts the pieces back in sequence order.

>>> devices = [mx.cpu(0), mx.cpu(1)]
>>> x = mx.nd.array(np.arange(8).reshape(1, 1, 8, 1))
>>> [p.reshape((-1,)).asnumpy().tolist() for p in split_sequence(x, devices, "zigzag")]
[[0.0, 1.0, 6.0, 7.0], [2.0, 3.0, 4.0, 5.0]]
>>> join_sequence(split_sequence(x, devices, "zigzag"), "zigzag").reshape((-1,)).asnumpy()
array([0., 1., 2., 3., 4., 5., 6., 7.], dtype=float32)
>>> q = k = v = split_sequence(x, devices)
>>> result = ring_attention(q, k, v, causal=True)
>>> result.sent                          # 4 positions x (1 key + 1 value) x 4 bytes, once
[32, 32]
>>> [o.context for o in result.outputs]
[cpu(0), cpu(1)]
"""

from typing import List, NamedTuple

import mxnet as mx
import numpy as np

from tutorial.sequence.attention import MASKED, causal_mask, check_qkv
from tutorial.sequence.online_softmax import Partial, finish, merge, partial
from tutorial.sequence.placement import place
from tutorial.sequence.ring_schedule import (FULLY, UNMASKED, RingSchedule, bytes_sent,
                                             kv_bytes_per_position, row_ranges, schedule)


class RingResult(NamedTuple):
    """One ring attention: each device's output and what the ring sent."""
    outputs: List[mx.nd.NDArray]     # per device, on its context: its queries' attention
    schedule: RingSchedule           # the plan the executor followed
    sent: List[int]                  # bytes each device sent


def split_sequence(x, devices, placement="plain"):
    """x (batch, heads, seq, head_dim) cut along seq as ``placement`` says, one piece
    on each of ``devices``."""
    if len(x.shape) != 4:
        raise ValueError(f"x must have 4 axes (batch, heads, seq, head_dim), got shape "
                         f"{tuple(x.shape)}")
    pieces = []
    for held, ctx in zip(place(x.shape[2], len(devices), placement), devices):
        parts = [mx.nd.slice_axis(x, axis=2, begin=a, end=b) for a, b in held.ranges]
        piece = parts[0] if len(parts) == 1 else mx.nd.concat(*parts, dim=2)
        pieces.append(piece.as_in_context(ctx))
    return pieces


def join_sequence(pieces, placement="plain"):
    """The inverse of :func:`split_sequence`, on the first piece's context."""
    ctx = pieces[0].context
    held = place(sum(p.shape[2] for p in pieces), len(pieces), placement)
    joined = mx.nd.concat(*[p.as_in_context(ctx) for p in pieces], dim=2)
    order = np.argsort(np.concatenate([h.positions for h in held]))
    return mx.nd.take(joined, mx.nd.array(order, ctx=ctx), axis=2)


def check_pieces(queries, keys, values):
    """A ValueError sentence unless queries, keys and values are lists of one piece per
    device that fit together (each device holds the same positions of all three)."""
    if not isinstance(queries, (list, tuple)) or not queries:
        raise ValueError("queries must be a non-empty list of NDArrays, one per device: cut "
                         "the full array with split_sequence(q, devices)")
    for name, pieces in (("keys", keys), ("values", values)):
        if not isinstance(pieces, (list, tuple)) or len(pieces) != len(queries):
            raise ValueError(f"{name} must be a list of {len(queries)} NDArrays, one per "
                             f"device as queries: cut the full array with "
                             f"split_sequence(x, devices)")
    for d, (q, k, v) in enumerate(zip(queries, keys, values)):
        check_qkv(q, k, v)
        for name, x in (("keys", k), ("values", v)):
            if x.shape[2] != q.shape[2]:
                raise ValueError(f"{name}[{d}] holds {x.shape[2]} positions but queries[{d}] "
                                 f"{q.shape[2]}: cut queries, keys and values with the same "
                                 f"split_sequence(x, devices, placement)")
            if x.context != q.context:
                raise ValueError(f"{name}[{d}] is on {x.context} but queries[{d}] on "
                                 f"{q.context}: put a device's queries, keys and values on "
                                 f"its own context")
        for name, x, first in (("queries", q, queries[0]), ("values", v, values[0])):
            if (x.shape[:2], x.shape[3]) != (first.shape[:2], first.shape[3]):
                raise ValueError(f"{name}[{d}] has shape {x.shape} and {name}[0] "
                                 f"{first.shape}: every device must agree on batch, heads "
                                 f"and head_dim")


def check_placement(plan, queries):
    """A ValueError sentence unless device d holds the positions ``plan`` gives it."""
    if len(queries) != plan.num_devices:
        raise ValueError(f"queries has {len(queries)} pieces but the plan {plan.num_devices} "
                         f"devices: build the plan with schedule(seq_len, {len(queries)})")
    for d, (q, held) in enumerate(zip(queries, plan.held)):
        if q.shape[2] != held.size:
            raise ValueError(f"queries[{d}] holds {q.shape[2]} positions, but the "
                             f"{plan.placement} placement of {plan.seq_len} positions on "
                             f"{plan.num_devices} devices gives device {d} {held.size}: cut "
                             f"it with split_sequence(x, devices, {plan.placement!r})")


def empty_partial(q, rows, value_dim):
    """The :class:`Partial` of ``rows`` query rows that have seen no key yet."""
    shape = (q.shape[0], q.shape[1], rows)
    return Partial(mx.nd.full(shape + (1,), MASKED, ctx=q.context, dtype=q.dtype),
                   mx.nd.zeros(shape + (1,), ctx=q.context, dtype=q.dtype),
                   mx.nd.zeros(shape + (value_dim,), ctx=q.context, dtype=q.dtype))


def attend(plan, work, q, k, v):
    """The :class:`Partial` of one device's queries ``q`` over the block ``k``, ``v`` it
    holds in ``work``, computing only the work's tiles (a range of rows that meets no key
    gets an empty partial, which a merge leaves alone)."""
    mine, theirs = plan.held[work.device], plan.held[work.block]
    pieces = []
    for rows in row_ranges(mine):
        found = None
        for t in (t for t in work.tiles if t.rows == rows):
            qt = mx.nd.slice_axis(q, axis=2, begin=rows[0], end=rows[1])
            kt, vt = (mx.nd.slice_axis(x, axis=2, begin=t.cols[0], end=t.cols[1])
                      for x in (k, v))
            mask = None if t.mask == UNMASKED else causal_mask(
                mine.positions[rows[0]:rows[1]], theirs.positions[t.cols[0]:t.cols[1]])
            p = partial(qt, kt, vt, mask)
            found = p if found is None else merge(found, p)
        pieces.append(found or empty_partial(q, rows[1] - rows[0], v.shape[3]))
    if len(pieces) == 1:
        return pieces[0]
    return Partial(*(mx.nd.concat(*parts, dim=2) for parts in zip(*pieces)))


def run(plan, queries, keys, values):
    """Carry out ``plan`` on each device's queries, keys and values (lists, one per device)."""
    check_pieces(queries, keys, values)
    check_placement(plan, queries)
    blocks = list(zip(keys, values))           # blocks[d]: the keys and values d holds now
    partials = [None] * plan.num_devices
    for step in plan.steps:
        for w in step:                         # every device attends to the block it holds
            if w.mask == FULLY:
                continue
            p = attend(plan, w, queries[w.device], *blocks[w.device])
            partials[w.device] = p if partials[w.device] is None else merge(
                partials[w.device], p)
        blocks = pass_on(step, queries, blocks)
    return RingResult([finish(p) for p in partials], plan, bytes_sent(plan))


def pass_on(step, queries, blocks):
    """Every device sends the block it held to the next one (all send what they held)."""
    passed = list(blocks)
    for w in step:
        if w.sends_to is not None:
            ctx = queries[w.sends_to].context
            passed[w.sends_to] = tuple(x.as_in_context(ctx) for x in blocks[w.device])
    return passed


def ring_attention(queries, keys, values, causal=False, placement="plain"):
    """Ring attention of per-device slices (cut by :func:`split_sequence` with the same
    ``placement``): a :class:`RingResult`, each device's output on its context.

    Pieces cut with another placement are refused when their sizes differ; when they
    have the same sizes (2K dividing the length) nothing can tell them apart.
    """
    check_pieces(queries, keys, values)
    (batch, heads, _, head_dim), value_dim = queries[0].shape, values[0].shape[3]
    itemsize = np.dtype(queries[0].dtype).itemsize
    plan = schedule(sum(q.shape[2] for q in queries), len(queries), causal, placement,
                    kv_bytes_per_position(batch, heads, head_dim, itemsize, value_dim))
    return run(plan, queries, keys, values)
