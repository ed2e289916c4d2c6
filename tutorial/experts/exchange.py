"""The all-to-all run for real: K contexts, each holding the rows it sends to every node.

The executor reads an :class:`~tutorial.experts.all_to_all.AllToAllSchedule`: each node
keeps its own block, then at every step each message's rows are sliced from the sender's
array and copied to the receiver's context (``as_in_context``: a real copy between
contexts). Node j's output is the blocks it received, joined in source order. Autograd
records the slices, copies and the join, so the backward pass is the reverse all-to-all
(:func:`~tutorial.experts.all_to_all.reverse`): each row's gradient goes back to the
node that sent the row; the tests check the two agree.

MXNet 1.x cannot hold an array with zero rows, so a node that sends nothing gives
``None`` as its input, and a node that receives nothing gets ``None`` as its output
(then say ``devices``: the contexts cannot be read from the inputs).

>>> devices = [mx.cpu(0), mx.cpu(1)]
>>> inputs = [mx.nd.array([[10], [11], [12]], ctx=devices[0]),
...           mx.nd.array([[20]], ctx=devices[1])]
>>> result = all_to_all(inputs, [[1, 2], [1, 0]])
>>> [o.asnumpy().ravel().tolist() for o in result.outputs]
[[10.0, 20.0], [11.0, 12.0]]
>>> result.sent, [o.context for o in result.outputs]
([8, 4], [cpu(0), cpu(1)])
"""

from typing import List, NamedTuple, Optional

import mxnet as mx
import numpy as np

from tutorial.experts.all_to_all import AllToAllSchedule, bytes_sent, schedule


class AllToAllResult(NamedTuple):
    """One all-to-all: what each node holds after it, and what it sent."""
    outputs: List[Optional[mx.nd.NDArray]]   # per node, on its context (None: no rows)
    schedule: AllToAllSchedule               # the plan the executor followed
    sent: List[int]                          # bytes each node sent


def check_inputs(inputs, counts, devices):
    """The contexts, one per node, once ``inputs`` fit ``counts``; else a ValueError."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"inputs must be a list of NDArrays (or None), one per node, got a "
                        f"{type(inputs).__name__}")
    if len(inputs) != len(counts):
        raise ValueError(f"inputs lists {len(inputs)} nodes but counts {len(counts)}: give "
                         f"one NDArray (or None) per row of counts")
    shapes = set()
    for i, (x, row) in enumerate(zip(inputs, counts)):
        rows = sum(row)
        if x is None:
            if rows:
                raise ValueError(f"inputs[{i}] is None but counts[{i}] sends {rows} rows: "
                                 f"give node {i} an NDArray of {rows} rows")
            continue
        if not isinstance(x, mx.nd.NDArray):
            raise TypeError(f"inputs[{i}] is a {type(x).__name__}, not an NDArray: convert "
                            f"it with mx.nd.array(x, ctx=device)")
        if len(x.shape) != 2 or x.shape[0] != rows:
            raise ValueError(f"inputs[{i}] must have shape (rows, features) with {rows} "
                             f"rows, the sum of counts[{i}]; got shape {tuple(x.shape)}")
        shapes.add((x.shape[1], np.dtype(x.dtype).name))
    if len(shapes) > 1:
        raise ValueError(f"every node's rows must have one width and dtype, got "
                         f"{sorted(shapes)}: a row is the same kind of thing everywhere")
    if devices is None:
        if any(x is None for x in inputs):
            raise ValueError("a node's input is None, so its context is unknown: pass "
                             "devices=[one context per node]")
        return [x.context for x in inputs]
    if len(devices) != len(counts):
        raise ValueError(f"devices must list {len(counts)} contexts, one per node, got "
                         f"{len(devices)}")
    for i, (x, ctx) in enumerate(zip(inputs, devices)):
        if x is not None and x.context != ctx:
            raise ValueError(f"inputs[{i}] is on {x.context} but devices[{i}] is {ctx}: "
                             f"put node {i}'s rows on its own context")
    return list(devices)


def rows_of(x, message):
    """The rows of ``x`` a message carries (a slice, or x itself when it is all of it)."""
    if message.source_start == 0 and message.rows == x.shape[0]:
        return x
    return mx.nd.slice_axis(x, axis=0, begin=message.source_start,
                            end=message.source_start + message.rows)


def run(plan, inputs, devices=None):
    """Carry out ``plan`` on ``inputs`` (one 2-D NDArray or None per node)."""
    devices = check_inputs(inputs, plan.counts, devices)
    k = plan.num_nodes
    blocks = [[None] * k for _ in range(k)]          # blocks[j][i]: block i -> j, on node j
    for m in plan.kept:
        blocks[m.destination][m.source] = rows_of(inputs[m.source], m)
    for step in plan.steps:                          # all send what they held before
        for m in step.messages:
            blocks[m.destination][m.source] = rows_of(inputs[m.source], m).as_in_context(
                devices[m.destination])
    outputs = []
    for j in range(k):
        arrived = [b for b in blocks[j] if b is not None]     # in source order
        outputs.append(None if not arrived else arrived[0] if len(arrived) == 1
                       else mx.nd.concat(*arrived, dim=0))
    return AllToAllResult(outputs, plan, bytes_sent(plan))


def all_to_all(inputs, counts, devices=None):
    """All-to-all of ``inputs`` (node i's rows, ``counts[i][j]`` of them for node j, in
    destination order): an :class:`AllToAllResult`; node j's output holds block j of every
    node, in source order. Row bytes are read from the inputs' width and dtype."""
    first = next((x for x in inputs if isinstance(x, mx.nd.NDArray) and len(x.shape) == 2),
                 None) if isinstance(inputs, (list, tuple)) else None
    row_bytes = 1 if first is None else max(1, first.shape[1] * np.dtype(first.dtype).itemsize)
    return run(schedule(counts, row_bytes), inputs, devices)
