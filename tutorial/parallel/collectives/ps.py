"""Parameter server: every node pushes its gradient to a server, which sums it and
sends the sum back. With ``servers=S`` the vector is sharded: server ``s`` (running on
node ``s``) owns chunk ``s``.

One server must receive N-1 whole vectors and send N-1 back: that node's link is the
bottleneck (the lecture). Sharding over S servers divides each server's traffic
by S; with S = N every node sends and receives 2(N-1)/N of the vector, the same
volume as the ring.

>>> s = schedule(4, 8, 4)
>>> [(st.phase, [(t.source, t.destination, t.op) for t in st.transfers]) for st in s.steps]
... # doctest: +NORMALIZE_WHITESPACE
[('push', [(1, 0, 'add'), (2, 0, 'add'), (3, 0, 'add')]),
 ('pull', [(0, 1, 'copy'), (0, 2, 'copy'), (0, 3, 'copy')])]
"""

from .schedule import Schedule, chunk_bounds, make_step, make_transfer


def schedule(num_nodes, length, itemsize, servers=1):
    """Push every shard to its server (add), then pull every shard back (copy)."""
    if not isinstance(servers, int) or not 1 <= servers <= num_nodes:
        raise ValueError(f"servers must be a whole number from 1 to the number of nodes "
                         f"({num_nodes}), got {servers!r}: each server runs on one node")
    chunks = chunk_bounds(length, servers)
    steps = []
    if num_nodes > 1:
        push = [make_transfer(node, server, server, chunks, itemsize, "add")
                for server in range(servers) for node in range(num_nodes) if node != server]
        pull = [make_transfer(server, node, server, chunks, itemsize, "copy")
                for server in range(servers) for node in range(num_nodes) if node != server]
        steps = [make_step("push", push), make_step("pull", pull)]
    name = "ps" if servers == 1 else f"ps (sharded, {servers} servers)"
    return Schedule(name, num_nodes, length, itemsize, chunks, tuple(steps))
