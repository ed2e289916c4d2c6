"""Replay a schedule without devices: who has contributed to each chunk of each node.

``contributions(schedule)[k, node, chunk, source]`` counts how many times ``source``'s
original chunk is inside ``node``'s copy of ``chunk`` after step k (k = 0 is the start).
A correct allreduce ends with every count equal to 1: everyone's data, each exactly
once. With node i holding the number i + 1, ``values`` gives the partial sums the
lecture draws (tree over 7 nodes: 8 and 13, then 28).

>>> from tutorial.parallel.collectives import schedule
>>> v = values(schedule("tree", 7, 1))
>>> v[1, :, 0].tolist(), v[2, :, 0].tolist()
([1, 2, 3, 4, 8, 13, 7], [1, 2, 3, 4, 8, 13, 28])
>>> values(schedule("butterfly", 4, 1))[:, :, 0].tolist()
[[1, 2, 3, 4], [3, 3, 7, 7], [10, 10, 10, 10]]
"""

import numpy as np


def contributions(schedule):
    """Counts of shape (steps + 1, nodes, chunks, sources), replayed step by step."""
    n, chunks = schedule.num_nodes, len(schedule.chunks)
    state = np.zeros((n, chunks, n), dtype=np.int64)
    for node in range(n):
        state[node, :, node] = 1
    frames = [state]
    for step in schedule.steps:
        new = state.copy()                       # senders send what they held before
        for t in step.transfers:
            if t.op == "add":
                new[t.destination, t.chunk] += state[t.source, t.chunk]
            else:
                new[t.destination, t.chunk] = state[t.source, t.chunk]
        state = new
        frames.append(state)
    return np.stack(frames)


def values(schedule, start=None):
    """Partial sums (steps + 1, nodes, chunks) when node i starts with ``start[i]`` (default i + 1)."""
    start = np.arange(1, schedule.num_nodes + 1) if start is None else np.asarray(start)
    return contributions(schedule) @ start


def problems(plan):
    """What is wrong with a schedule's result ([] when every node ends with the full sum).

    >>> from tutorial.parallel.collectives import Schedule, Step, Transfer
    >>> half = Schedule("half", 2, 1, 4, ((0, 1),),
    ...                 (Step("push", (Transfer(0, 1, 0, 0, 1, 4, "add"),)),))
    >>> problems(half)
    ["node 0, chunk 0: missing node 1's data"]
    """
    final = contributions(plan)[-1]
    found = []
    for node, chunk, source in zip(*np.nonzero(final != 1)):
        a, b = plan.chunks[chunk]
        if b == a:
            continue                                   # an empty chunk holds nothing
        count = final[node, chunk, source]
        what = "missing" if count == 0 else f"{count} copies of"
        found.append(f"node {node}, chunk {chunk}: {what} node {source}'s data")
    return found
