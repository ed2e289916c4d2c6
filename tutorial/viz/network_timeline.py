"""The allreduce as messages on a clock: when each transfer of a schedule leaves and lands.

Pure, and computed once. :func:`timeline` lays one schedule out in time under the
alpha-beta-gamma model of :mod:`tutorial.parallel.costmodel`. A step starts when the
previous one has ended. Inside it a node sends one message at a time and receives one at
a time (full duplex); a message takes ``costmodel.transfer_costs`` (alpha + bytes x beta,
links to a straggler ``slowdown`` times slower), then the receiver adds it in (bytes x
gamma) before it takes the next one. Messages go in schedule order, each as soon as its
sender and its receiver are free. For the schedules drawn here (ps with one server, tree,
butterfly, ring) that fills each step exactly as long as ``costmodel.step_times`` says,
so every clock ends at ``costmodel.predict`` (the tests check both). A sharded ps, where
every node sends to several servers at once, would come out longer: schedule order can
leave a link idle that a better order would use.

:func:`build_network_model` prices every node count, array size and straggler the view
offers, with where to draw each node (:mod:`tutorial.viz.topology`); :func:`lookup`,
:func:`in_flight`, :func:`adding` and :func:`held_at` are the look-ups the view draws with.

>>> from tutorial.parallel.collectives import schedule
>>> tl = timeline(schedule("tree", 3, 1), alpha=1.0, beta=0.0)
>>> tl.start.tolist(), tl.arrive.tolist(), tl.step_ends.tolist()   # root 2 takes 0, then 1
([0.0, 1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0], [0.0, 2.0, 4.0])
"""

import dataclasses
from typing import Tuple

import numpy as np

from tutorial.parallel import collectives, costmodel
from tutorial.viz import topology
from tutorial.viz.allreduce_anim import EVEN_LENGTH     # the chunk table's schedules too

ALPHA = 10e-6                 # seconds per message: 10 us
BETA = 1 / 10e9               # seconds per byte: 10 GB/s links
GAMMA = 1 / 50e9              # seconds per byte added: 50 GB/s
SIZES = (("4 KB", 4e3), ("1 MB", 1e6), ("64 MB", 64e6))    # (label, bytes per node)
SLOWDOWNS = (2, 4, 8)


@dataclasses.dataclass(frozen=True)
class Timeline:
    """Every message of one allreduce, in seconds from its start; one entry per message."""
    algorithm: str
    num_nodes: int
    step: np.ndarray              # (messages,) int: the step each message belongs to
    source: np.ndarray            # (messages,) int
    destination: np.ndarray       # (messages,) int
    adds: np.ndarray              # (messages,) bool: the receiver adds (else it copies)
    start: np.ndarray             # (messages,) when the message leaves
    arrive: np.ndarray            # (messages,) when its last byte is in
    done: np.ndarray              # (messages,) arrive + the receiver's add
    step_ends: np.ndarray         # (steps + 1,) 0, then the end of each step
    held: np.ndarray              # (steps + 1, nodes) share of the full sum each node holds
    phases: Tuple[str, ...]       # (steps,) e.g. 'reduce-scatter'

    @property
    def total(self):
        return float(self.step_ends[-1])

    @property
    def num_steps(self):
        return len(self.phases)


def held_shares(plan):
    """(steps + 1, nodes): which share of the full sum each node holds after each step."""
    counts = collectives.contributions(plan).sum(axis=3)      # (steps+1, nodes, chunks)
    sizes = np.array([stop - start for start, stop in plan.chunks], float)
    return counts @ sizes / (plan.num_nodes * sizes.sum())


def timeline(plan, alpha, beta, gamma=0.0, nbytes=None, slow_node=None, slowdown=1.0,
             held=None):
    """Lay ``plan`` out in time for arrays of ``nbytes`` per node (default: the plan's)."""
    scale = 1.0 if nbytes is None else nbytes / plan.nbytes
    rows, ends, now = [], [0.0], 0.0
    for k, step in enumerate(plan.steps):
        costs = costmodel.transfer_costs(step, alpha, beta * scale, slow_node, slowdown)
        send_free, receive_free, end = {}, {}, now
        for t, cost in zip(step.transfers, costs):
            leave = max(send_free.get(t.source, now), receive_free.get(t.destination, now))
            land = leave + cost
            added = land + (t.nbytes * scale * gamma if t.op == "add" else 0.0)
            send_free[t.source], receive_free[t.destination] = land, added
            rows.append((k, t.source, t.destination, t.op == "add", leave, land, added))
            end = max(end, added)
        ends.append(end)
        now = end
    columns = list(zip(*rows)) if rows else [()] * 7
    return Timeline(plan.algorithm, plan.num_nodes,
                    *(np.array(c, int) for c in columns[:3]), np.array(columns[3], bool),
                    *(np.array(c, float) for c in columns[4:]), np.array(ends),
                    held_shares(plan) if held is None else held,
                    tuple(s.phase for s in plan.steps))


@dataclasses.dataclass(frozen=True)
class NetworkModel:
    """Everything the network view draws, computed once."""
    timelines: dict               # (algorithm, nodes, size label, slow node, slowdown) -> Timeline
    layouts: dict                 # (algorithm, nodes) -> topology.Layout
    sizes: tuple                  # ((label, bytes per node), ...)
    slowdowns: tuple
    network: tuple                # (alpha, beta, gamma)

    @property
    def algorithms(self):
        return tuple(a for a in costmodel.ALGORITHMS if any(k[0] == a for k in self.layouts))

    @property
    def node_counts(self):
        return tuple(sorted({n for _, n in self.layouts}))


def stragglers(num_nodes, slowdowns=SLOWDOWNS):
    """(slow node, slowdown) pairs the view offers: none, or any node at each slowdown."""
    return [(None, 1.0)] + [(node, float(s)) for node in range(num_nodes) for s in slowdowns]


def build_network_model(node_counts=range(2, 17), sizes=SIZES, slowdowns=SLOWDOWNS,
                        alpha=ALPHA, beta=BETA, gamma=GAMMA):
    """The :class:`NetworkModel`: a timeline for every setting the view offers."""
    timelines, layouts = {}, {}
    for algorithm in costmodel.ALGORITHMS:
        for n in node_counts:
            plan = collectives.schedule(algorithm, n, EVEN_LENGTH)
            layouts[algorithm, n] = topology.layout(algorithm, n, plan)
            held = held_shares(plan)                # the same whatever the clock
            for label, nbytes in sizes:
                for slow, slowdown in stragglers(n, slowdowns):
                    timelines[algorithm, n, label, slow, slowdown] = timeline(
                        plan, alpha, beta, gamma, nbytes, slow, slowdown, held)
    return NetworkModel(timelines, layouts, tuple(sizes), tuple(float(s) for s in slowdowns),
                        (alpha, beta, gamma))


def lookup(model, algorithm, nodes, size, slow_node=None, slowdown=1.0):
    """The timeline for these settings; a slow node outside the cluster means none."""
    if slow_node is None or not 0 <= slow_node < nodes:
        slow_node, slowdown = None, 1.0
    return model.timelines[algorithm, nodes, size, slow_node, float(slowdown)]


def in_flight(tl, t):
    """(indices, fraction of the way) of the messages on the wire at time ``t``."""
    moving = np.flatnonzero((tl.start <= t) & (t < tl.arrive))
    return moving, (t - tl.start[moving]) / (tl.arrive[moving] - tl.start[moving])


def adding(tl, t):
    """Nodes adding a chunk they received at time ``t`` (the gamma part of the clock)."""
    return np.unique(tl.destination[(tl.arrive <= t) & (t < tl.done)])


def steps_done(tl, t):
    """How many steps have ended by time ``t``."""
    return int(np.searchsorted(tl.step_ends[1:], t, side="right"))


def held_at(tl, t):
    """(nodes,) share of the full sum each node holds at time ``t``."""
    return tl.held[steps_done(tl, t)]
