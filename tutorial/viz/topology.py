"""Where to draw each node of an allreduce, and its links: the ones its schedule uses.

Positions are in the unit square, (0, 0) top left. The parameter server sits in the
middle of its workers; the ring is a circle; the tree hangs from its root (the last node,
as in :mod:`~tutorial.parallel.collectives.tree`), its deepest level as wide as the picture,
so that sixteen nodes leave room for large labels; the butterfly's nodes sit on a grid
where every exchange partner (node XOR 2^k) lies in the same row or column, and the nodes
that fold in sit in a second grid below their partners. A link that would run straight
over another node bends away from the middle instead.

>>> lay = layout("ps", 5)
>>> lay.positions[0].tolist(), sorted(lay.links)[:2]
([0.5, 0.5], [(0, 1), (0, 2)])
>>> layout("butterfly", 16).positions[[0, 1, 2, 4]].tolist()   # 1, 4: same row; 2: below
[[0.125, 0.125], [0.375, 0.125], [0.125, 0.375], [0.625, 0.125]]
"""

import dataclasses
from typing import Tuple

import numpy as np

from tutorial.parallel import collectives
from tutorial.parallel.collectives import butterfly, tree

RADIUS = 0.45                 # of the circle the ring and the workers sit on
BEND = 0.3                    # a bent link's control point, off its middle, x its length
CLEARANCE = 0.06              # a straight link passing closer than this to a node bends


@dataclasses.dataclass(frozen=True)
class Layout:
    algorithm: str
    positions: np.ndarray                  # (nodes, 2) in the unit square
    links: Tuple[Tuple[int, int], ...]     # (a, b), a < b: pairs the schedule connects
    controls: np.ndarray                   # (links, 2) control point of each link's curve

    def index(self):
        """{(a, b): link number} for looking a message's link up."""
        return {link: i for i, link in enumerate(self.links)}


def _circle(count, offset=0):
    angles = -np.pi / 2 + 2 * np.pi * (np.arange(count) + offset) / count
    return 0.5 + RADIUS * np.stack([np.cos(angles), np.sin(angles)], axis=1)


def _tree(n):
    levels = tree.depth(n) + 1
    margin = 0.5 / 2 ** (levels - 1)               # half a slot of the deepest level
    spots = []
    for node in range(n):
        heap = n - 1 - node                        # heap index 0 is the root
        level = tree.level_of(node, n)
        slot = heap - (2 ** level - 1)
        x = ((slot + 0.5) / 2 ** level - margin) / (1 - 2 * margin)   # deepest: 0 to 1
        spots.append((x, (level + 0.5) / levels))
    return np.array(spots)


def _bits(value, parity):
    """The bits of ``value`` at even (parity 0) or odd (parity 1) places, packed."""
    return sum(((value >> (2 * i + parity)) & 1) << i for i in range(8))


def _butterfly(n):
    p = butterfly.power_of_two_at_most(n)
    k = p.bit_length() - 1
    columns, rows = 2 ** ((k + 1) // 2), 2 ** (k // 2)
    grids = 2 if n > p else 1
    spots = []
    for node in range(n):
        base = node if node < p else node - p      # a folding node sits below its partner
        row = _bits(base, 1) + (rows if node >= p else 0)
        spots.append(((_bits(base, 0) + 0.5) / columns, (row + 0.5) / (rows * grids)))
    return np.array(spots)


def _positions(algorithm, n):
    if algorithm == "ring":
        return _circle(n)
    if algorithm == "ps":
        return np.vstack([[0.5, 0.5], _circle(n - 1)])
    if algorithm == "tree":
        return _tree(n)
    if algorithm == "butterfly":
        return _butterfly(n)
    raise ValueError(f"no layout for {algorithm!r}: choose one of "
                     f"{', '.join(collectives.ALGORITHMS)}")


def _passes_over(a, b, others):
    """True if the segment a-b runs within CLEARANCE of any point of ``others``."""
    along = b - a
    f = np.clip((others - a) @ along / (along @ along), 0, 1)
    return bool(len(others)) and np.min(np.hypot(*(a + f[:, None] * along - others).T)) < CLEARANCE


def _control(positions, a, b):
    """The control point of link a-b: its middle, or off it, away from the middle of the
    picture, when a straight line would cross another node."""
    p, q = positions[a], positions[b]
    middle, along = (p + q) / 2, q - p
    others = np.delete(positions, [a, b], axis=0)
    if not _passes_over(p, q, others):
        return middle
    normal = np.array([-along[1], along[0]])
    if normal @ (middle - 0.5) < 0:
        normal = -normal
    return middle + BEND * normal


def layout(algorithm, num_nodes, plan=None):
    """The :class:`Layout` of ``algorithm`` on ``num_nodes`` nodes; links from its schedule
    (default: one element per node, so that no ring chunk is empty)."""
    plan = collectives.schedule(algorithm, num_nodes, num_nodes) if plan is None else plan
    positions = _positions(algorithm, num_nodes)
    links = tuple(sorted({(min(t.source, t.destination), max(t.source, t.destination))
                          for step in plan.steps for t in step.transfers}))
    controls = np.array([_control(positions, a, b) for a, b in links]).reshape(-1, 2)
    return Layout(algorithm, positions, links, controls)


def point_on_link(lay, link, source, fraction):
    """Where a message from ``source`` is after ``fraction`` of its way along ``link``, and
    its direction of travel there (a unit vector)."""
    a, b = lay.links[link]
    forward = source == a
    f = fraction if forward else 1 - fraction
    p0, c, p1 = lay.positions[a], lay.controls[link], lay.positions[b]
    point = (1 - f) ** 2 * p0 + 2 * (1 - f) * f * c + f ** 2 * p1
    heading = 2 * (1 - f) * (c - p0) + 2 * f * (p1 - c)
    heading = heading / np.hypot(*heading) * (1 if forward else -1)
    return point, heading
