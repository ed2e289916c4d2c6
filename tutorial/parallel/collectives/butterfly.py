"""Butterfly (recursive doubling): at step k node i swaps its whole vector with node
i XOR 2^k and both add, so after log2 N steps every node holds the sum, with no
separate broadcast (the lecture: 4 nodes holding 1, 2, 3, 4 hold 3, 3, 7, 7, then 10).

When N is not a power of two, let P be the largest power of two below N and R = N - P.
Node P + j first folds its vector into node j (add), the P nodes run the butterfly,
and node j hands the result back to node P + j (copy): log2 P + 2 steps
(Thakur, Rabenseifner & Gropp 2005, section 4).

>>> [len(schedule(n, 1, 4).steps) for n in (2, 4, 8, 16)]
[1, 2, 3, 4]
>>> [st.phase for st in schedule(6, 1, 4).steps]
['fold', 'exchange', 'exchange', 'unfold']
"""

from .schedule import Schedule, chunk_bounds, make_step, make_transfer


def power_of_two_at_most(num_nodes):
    """The largest power of two that is <= num_nodes (num_nodes >= 1): the nodes that
    exchange; the others fold into them first.

    >>> [power_of_two_at_most(n) for n in (1, 2, 3, 4, 5, 8, 9)]
    [1, 2, 2, 4, 4, 8, 8]
    """
    if num_nodes < 1:
        raise ValueError(f"num_nodes must be at least 1, got {num_nodes}")
    return 1 << (num_nodes.bit_length() - 1)


def schedule(num_nodes, length, itemsize):
    """Fold the extra nodes in, exchange-and-add at distance 1, 2, 4, ..., unfold."""
    chunks = chunk_bounds(length, 1)
    p = power_of_two_at_most(num_nodes)
    extra = range(p, num_nodes)
    steps = []
    if extra:
        steps.append(make_step("fold", [
            make_transfer(n, n - p, 0, chunks, itemsize, "add") for n in extra]))
    distance = 1
    while distance < p:
        steps.append(make_step("exchange", [
            make_transfer(n, n ^ distance, 0, chunks, itemsize, "add") for n in range(p)]))
        distance *= 2
    if extra:
        steps.append(make_step("unfold", [
            make_transfer(n - p, n, 0, chunks, itemsize, "copy") for n in extra]))
    return Schedule("butterfly", num_nodes, length, itemsize, chunks, tuple(steps))
