"""Ring allreduce (Patarasuk & Yuan 2009): reduce-scatter, then all-gather.

The vector is cut into N chunks (sizes differ by at most one element when N does not
divide the length). Each node only ever sends to its right neighbour (i + 1) mod N.

Chunk-numbering convention used here: in reduce-scatter step s (s = 0 .. N-2) node i
sends chunk (i - s) mod N and the receiver adds it; afterwards node i holds the full
sum of chunk (i + 1) mod N. In all-gather step s node i sends chunk (i + 1 - s) mod N
and the receiver copies it. That is 2(N-1) steps, and each node sends 2(N-1)/N of the
vector whatever N is: the time depends on the slowest link, not on N.

>>> s = schedule(4, 4, 1)
>>> [(t.source, t.chunk) for t in s.steps[0].transfers]
[(0, 0), (1, 1), (2, 2), (3, 3)]
>>> len(s.steps), [st.phase for st in s.steps][2:4]
(6, ['reduce-scatter', 'all-gather'])
"""

from .schedule import Schedule, chunk_bounds, make_step, make_transfer


def schedule(num_nodes, length, itemsize):
    """N-1 reduce-scatter steps (add), then N-1 all-gather steps (copy)."""
    n = num_nodes
    chunks = chunk_bounds(length, n)
    steps = []
    for s in range(n - 1):
        steps.append(make_step("reduce-scatter", [
            make_transfer(i, (i + 1) % n, (i - s) % n, chunks, itemsize, "add")
            for i in range(n)]))
    for s in range(n - 1):
        steps.append(make_step("all-gather", [
            make_transfer(i, (i + 1) % n, (i + 1 - s) % n, chunks, itemsize, "copy")
            for i in range(n)]))
    return Schedule("ring", n, length, itemsize, chunks, tuple(steps))
