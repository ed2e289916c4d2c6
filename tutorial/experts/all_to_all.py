"""All-to-all as data: every node sends a block of rows to every other node.

Node i holds K row-blocks, one per destination: its first ``counts[i][0]`` rows are for
node 0, the next ``counts[i][1]`` for node 1, and so on (uneven, possibly empty). After
the all-to-all node j holds block j of every node, in source order: the K x K matrix of
blocks is transposed. Expert parallelism sends each token to its expert's device this way.

The schedule is the *pairwise exchange* (Thakur, Rabenseifner & Gropp 2005,
"Optimization of collective communication operations in MPICH", section 3.5): node i
keeps its own block, then at step s = 1 .. K-1 sends block (i + s) mod K to node
(i + s) mod K and receives from node (i - s) mod K. (MPICH pairs node i with i XOR s
when K is a power of two, and uses this order otherwise.) Every node sends one message and
receives one in each step, so no link carries two at once. Node i sends
``sum_{j != i} counts[i][j] * row_bytes`` bytes; the block it keeps travels nowhere.

The course's allreduce :class:`~tutorial.parallel.collectives.schedule.Schedule` does not
fit: its chunks are the same on every node and a receiver writes where the sender read,
while here node i's blocks have their own sizes and land at another offset. So the
messages carry their rows, where they start in the sender and where they land.

Two nodes; node 0 sends 2 rows to node 1, node 1 sends 1 row to node 0 (4 bytes a row):

>>> plan = schedule([[1, 2], [1, 0]], row_bytes=4)
>>> [(m.source, m.destination, m.rows, m.source_start, m.destination_start, m.nbytes)
...  for m in plan.steps[0].messages]
[(0, 1, 2, 1, 0, 8), (1, 0, 1, 0, 1, 4)]
>>> bytes_sent(plan), plan.output_rows
([8, 4], (2, 2))
>>> held(plan)                    # after each step: the sources whose block a node holds
[((0,), ()), ((0, 1), (0,))]
>>> [o.ravel().tolist() for o in transpose_reference([[10, 11, 12], [20]], plan.counts)]
[[10, 20], [11, 12]]
"""

import dataclasses
from typing import Tuple

import numpy as np

from tutorial.validate import check_count


@dataclasses.dataclass(frozen=True)
class Message:
    """``source`` sends its rows ``source_start : source_start + rows`` to ``destination``."""
    source: int
    destination: int
    rows: int                  # counts[source][destination]
    source_start: int          # its first row in the source's input
    destination_start: int     # where it lands in the destination's output
    nbytes: int                # rows * row_bytes (0 for a block a node keeps)


@dataclasses.dataclass(frozen=True)
class Exchange:
    """One step: node i sends to (i + shift) mod K and receives from (i - shift) mod K."""
    shift: int
    messages: Tuple[Message, ...]      # the non-empty blocks only


@dataclasses.dataclass(frozen=True)
class AllToAllSchedule:
    """The whole plan of one all-to-all."""
    counts: Tuple[Tuple[int, ...], ...]   # counts[i][j]: rows node i holds for node j
    row_bytes: int                        # bytes of one row
    kept: Tuple[Message, ...]             # block i -> i, copied on node i, never sent
    steps: Tuple[Exchange, ...]           # shifts 1 .. K-1

    @property
    def num_nodes(self):
        return len(self.counts)

    @property
    def input_rows(self):
        """Rows each node holds before: the sum of its row of ``counts``."""
        return tuple(sum(row) for row in self.counts)

    @property
    def output_rows(self):
        """Rows each node holds after: the sum of its column of ``counts``."""
        return tuple(sum(column) for column in zip(*self.counts))


def check_counts(counts):
    """``counts`` as a tuple of tuples of ints: K rows of K whole numbers >= 0."""
    if not isinstance(counts, (list, tuple, np.ndarray)) or len(counts) == 0:
        raise ValueError(f"counts must be a K x K table (counts[i][j]: rows node i sends to "
                         f"node j), K >= 1, got {counts!r}")
    k = len(counts)
    table = []
    for i, row in enumerate(counts):
        if not isinstance(row, (list, tuple, np.ndarray)) or len(row) != k:
            raise ValueError(f"counts must be square: counts[{i}] must list {k} counts, one "
                             f"per destination node, got {row!r}")
        row = [int(c) if isinstance(c, np.integer) else c for c in row]
        table.append(tuple(check_count(f"counts[{i}][{j}]", c, low=0, what="rows to send")
                           for j, c in enumerate(row)))
    return tuple(table)


def starts(sizes):
    """Where each of the consecutive blocks of ``sizes`` rows starts."""
    return tuple(int(s) for s in np.concatenate([[0], np.cumsum(sizes)[:-1]]))


def schedule(counts, row_bytes=4):
    """The pairwise-exchange :class:`AllToAllSchedule` of ``counts`` (K x K)."""
    counts = check_counts(counts)
    row_bytes = check_count("row_bytes", row_bytes, what="bytes of one row")
    k = len(counts)
    source_starts = [starts(row) for row in counts]                 # by sender
    destination_starts = [starts(column) for column in zip(*counts)]  # by receiver

    def message(i, j):
        rows = counts[i][j]
        return Message(i, j, rows, source_starts[i][j], destination_starts[j][i],
                       0 if i == j else rows * row_bytes)

    kept = tuple(message(i, i) for i in range(k) if counts[i][i])
    steps = tuple(Exchange(s, tuple(message(i, (i + s) % k) for i in range(k)
                                    if counts[i][(i + s) % k]))
                  for s in range(1, k))
    return AllToAllSchedule(counts, row_bytes, kept, steps)


def transpose(counts):
    """The counts of the all-to-all that sends every block back: counts[j][i]."""
    return tuple(zip(*check_counts(counts)))


def reverse(plan):
    """The all-to-all that undoes ``plan`` (its backward pass: gradients go back)."""
    return schedule(transpose(plan.counts), plan.row_bytes)


def bytes_sent(plan):
    """Bytes each node sends over the whole schedule (a list, one entry per node)."""
    sent = [0] * plan.num_nodes
    for step in plan.steps:
        for m in step.messages:
            sent[m.source] += m.nbytes
    return sent


def bytes_received(plan):
    """Bytes each node receives over the whole schedule."""
    received = [0] * plan.num_nodes
    for step in plan.steps:
        for m in step.messages:
            received[m.destination] += m.nbytes
    return received


def held(plan):
    """Frames for a drawing: ``frames[s][j]`` are the sources whose block node j holds in
    its output after step s (s = 0: the block it kept). Empty blocks are never held."""
    holding = [set() for _ in range(plan.num_nodes)]
    for m in plan.kept:
        holding[m.destination].add(m.source)
    frames = [tuple(tuple(sorted(h)) for h in holding)]
    for step in plan.steps:
        for m in step.messages:
            holding[m.destination].add(m.source)
        frames.append(tuple(tuple(sorted(h)) for h in holding))
    return frames


def replay(plan, inputs):
    """Run ``plan`` on NumPy arrays without devices: frames (steps + 1) of each node's
    output as float64, NaN in the rows that have not arrived yet (for drawing)."""
    inputs = [np.asarray(x, dtype=np.float64) for x in inputs]
    inputs = [x.reshape(len(x), -1) if x.size else x.reshape(len(x), 0) for x in inputs]
    if [len(x) for x in inputs] != list(plan.input_rows):
        raise ValueError(f"inputs hold {[len(x) for x in inputs]} rows but the schedule's "
                         f"counts say {list(plan.input_rows)}: node i holds sum(counts[i])")
    width = max(x.shape[1] for x in inputs)
    outputs = [np.full((rows, width), np.nan) for rows in plan.output_rows]

    def deliver(m):
        outputs[m.destination][m.destination_start:m.destination_start + m.rows] = \
            inputs[m.source][m.source_start:m.source_start + m.rows]

    for m in plan.kept:
        deliver(m)
    frames = [[o.copy() for o in outputs]]
    for step in plan.steps:
        for m in step.messages:
            deliver(m)
        frames.append([o.copy() for o in outputs])
    return frames


def transpose_reference(inputs, counts):
    """The all-to-all's result by NumPy alone: cut each node's rows into its blocks, then
    node j gets block j of every node, in source order (the independent reference)."""
    counts = check_counts(counts)
    blocks = [np.split(np.asarray(x), np.cumsum(row)[:-1]) for x, row in zip(inputs, counts)]
    return [np.concatenate([blocks[i][j] for i in range(len(counts))])
            for j in range(len(counts))]
