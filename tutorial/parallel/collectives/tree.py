"""Reduction tree: sum up a binary tree to its root, then broadcast down the same tree.

Nodes are placed on a complete binary tree in reverse level order: the root is the
last node, its children the two before it, and the leaves come first. With 7 nodes
holding 1..7 this is the lecture's example: 1, 2 -> 5 gives 8 and 3, 4 -> 6 gives 13
(step 1); 8 and 13 -> 7 gives 28 (step 2); then 28 goes back down in two steps.

A tree of N nodes has depth d = floor(log2 N), so the allreduce takes 2d steps (the
notes' 2 log2 N); 2^k - 1 nodes fill every level, which is why the notes call such
counts ideal. A parent receives from two children in one step.

>>> [parent_of(node, 7) for node in range(7)]
[4, 4, 5, 5, 6, 6, None]
>>> len(schedule(7, 1, 4).steps), depth(7)
(4, 2)
"""

from .schedule import Schedule, chunk_bounds, make_step, make_transfer


def depth(num_nodes):
    """Edges from the root to the deepest leaf: floor(log2 N)."""
    return num_nodes.bit_length() - 1


def _heap(node, num_nodes):
    return num_nodes - 1 - node          # heap index 0 is the root (the last node)


def parent_of(node, num_nodes):
    """The node that ``node`` sends its partial sum to (None for the root)."""
    h = _heap(node, num_nodes)
    return None if h == 0 else num_nodes - 1 - (h - 1) // 2


def level_of(node, num_nodes):
    """Depth of ``node`` in the tree (the root is at level 0)."""
    return (_heap(node, num_nodes) + 1).bit_length() - 1


def schedule(num_nodes, length, itemsize):
    """Reduce level by level from the deepest up, then broadcast level by level down."""
    chunks = chunk_bounds(length, 1)
    d = depth(num_nodes)
    by_level = [[n for n in range(num_nodes) if level_of(n, num_nodes) == lev]
                for lev in range(d + 1)]
    steps = []
    for lev in range(d, 0, -1):
        steps.append(make_step("reduce", [
            make_transfer(n, parent_of(n, num_nodes), 0, chunks, itemsize, "add")
            for n in by_level[lev]]))
    for lev in range(1, d + 1):
        steps.append(make_step("broadcast", [
            make_transfer(parent_of(n, num_nodes), n, 0, chunks, itemsize, "copy")
            for n in by_level[lev]]))
    return Schedule("tree", num_nodes, length, itemsize, chunks, tuple(steps))
