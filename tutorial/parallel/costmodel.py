"""The alpha-beta-gamma cost of each allreduce, and how measured bandwidth is reported.

A message of b bytes costs ``alpha + b * beta`` (latency plus bytes over bandwidth
B = 1 / beta); adding b bytes into a buffer costs ``b * gamma``. A node sends one
message at a time and receives one at a time, but may send and receive at once
(full duplex). Formulas, for N nodes and n bytes per node:

=============  ==========================================================
ps (S servers) 2(N-1) alpha + 2(N-1) n/S beta + (N-1) n/S gamma
tree           sum over levels l of c_l (2 alpha + 2 n beta + n gamma),
               c_l = min(2, nodes on level l) (a parent has two children)
butterfly      log2 N (alpha + n beta + n gamma) for N a power of two; else
               (log2 P + 2)(alpha + n beta) + (log2 P + 1) n gamma, P = 2^floor(log2 N)
ring           2(N-1) alpha + 2(N-1)/N n beta + (N-1)/N n gamma
=============  ==========================================================

and no allreduce beats the lower bounds ceil(log2 N) alpha (latency) and
2(N-1)/N n beta (bandwidth). Sources: R. Thakur, R. Rabenseifner and W. Gropp,
"Optimization of Collective Communication Operations in MPICH", IJHPCA 19(1), 2005
(recursive doubling, reduce-scatter + allgather, the lower bounds); P. Patarasuk and
X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of workstations",
JPDC 69(2), 2009 (the ring). Measured results are reported as nccl-tests does:
algbw = bytes / time, busbw = algbw * 2(N-1)/N (comparable across N).

>>> ring = predict("ring", 4, 1e6, alpha=1e-5, beta=1e-9)
>>> round(ring * 1e3, 4)                 # 6 alpha + 1.5 MB / (1 GB/s), in ms
1.56
>>> round(bandwidth_lower_bound(4, 1e6, beta=1e-9) * 1e3, 4)
1.5
>>> cost_terms("butterfly", 8, 100)      # (messages, bytes on the wire, bytes added)
(3, 300, 300)
>>> busbw(1e6, 1e-3, 4) / algbw(1e6, 1e-3)
1.5
"""

import math

import numpy as np

from tutorial.parallel.collectives.dispatch import ALGORITHMS
from tutorial.validate import check_count, check_range


def _check(num_nodes, nbytes):
    check_count("num_nodes", num_nodes)
    check_range("nbytes", nbytes, 0)


def _check_network(**times):
    """alpha, beta, gamma (seconds per message, per byte, per byte added): finite, >= 0."""
    for name, value in times.items():
        check_range(name, value, 0.0)


def _tree_levels(num_nodes):
    """Number of nodes on each level 1..depth of a complete binary tree."""
    depth = num_nodes.bit_length() - 1
    return [min(2 ** lev, num_nodes - (2 ** lev - 1)) for lev in range(1, depth + 1)]


def cost_terms(algorithm, num_nodes, nbytes, servers=1):
    """(A, B, C) with time = A alpha + B beta + C gamma: the formulas in the module docstring."""
    _check(num_nodes, nbytes)
    n, N = nbytes, int(num_nodes)
    if N == 1:
        return (0, 0, 0)
    if algorithm == "ps":
        check_count("servers", servers, what=f"and at most num_nodes={N}")
        if servers > N:
            raise ValueError(f"servers must be from 1 to {N}, got {servers!r}")
        return (2 * (N - 1), 2 * (N - 1) * n / servers, (N - 1) * n / servers)
    if algorithm == "tree":
        c = sum(min(2, count) for count in _tree_levels(N))
        return (2 * c, 2 * c * n, c * n)
    if algorithm == "butterfly":
        k = N.bit_length() - 1
        if N == 2 ** k:
            return (k, k * n, k * n)
        return (k + 2, (k + 2) * n, (k + 1) * n)
    if algorithm == "ring":
        return (2 * (N - 1), 2 * (N - 1) * n / N, (N - 1) * n / N)
    raise ValueError(f"unknown algorithm {algorithm!r}: choose one of {', '.join(ALGORITHMS)}")


def predict(algorithm, num_nodes, nbytes, alpha, beta, gamma=0.0, servers=1):
    """Seconds one allreduce of ``nbytes`` per node takes under the alpha-beta-gamma model."""
    _check_network(alpha=alpha, beta=beta, gamma=gamma)
    a, b, c = cost_terms(algorithm, num_nodes, nbytes, servers)
    return a * alpha + b * beta + c * gamma


def latency_lower_bound(num_nodes, alpha):
    """ceil(log2 N) alpha: the sum needs log2 N rounds of doubling (Thakur et al. 2005)."""
    check_count("num_nodes", num_nodes)
    _check_network(alpha=alpha)
    return math.ceil(math.log2(num_nodes)) * alpha


def bandwidth_lower_bound(num_nodes, nbytes, beta):
    """2(N-1)/N n beta: each node must send and receive (N-1)/N of the data twice."""
    _check(num_nodes, nbytes)
    _check_network(beta=beta)
    return 2 * (num_nodes - 1) / num_nodes * nbytes * beta


def transfer_costs(step, alpha, beta, slow_node=None, slowdown=1.0):
    """Seconds of each transfer in ``step``; links touching ``slow_node`` are ``slowdown`` times slower."""
    return [alpha + t.nbytes * beta *
            (slowdown if slow_node in (t.source, t.destination) else 1.0)
            for t in step.transfers]


def step_times(schedule, alpha, beta, gamma=0.0, slow_node=None, slowdown=1.0):
    """Seconds of each step of a real schedule: the busiest node's sends or receives (+ adds)."""
    check_range("slowdown", slowdown, 1.0)      # a straggler is slower, never faster
    _check_network(alpha=alpha, beta=beta, gamma=gamma)
    times = []
    for step in schedule.steps:
        sending = np.zeros(schedule.num_nodes)
        receiving = np.zeros(schedule.num_nodes)
        for t, cost in zip(step.transfers, transfer_costs(step, alpha, beta, slow_node,
                                                           slowdown)):
            sending[t.source] += cost
            receiving[t.destination] += cost + (t.nbytes * gamma if t.op == "add" else 0.0)
        times.append(float(max(sending.max(initial=0.0), receiving.max(initial=0.0))))
    return times


def schedule_time(schedule, alpha, beta, gamma=0.0, slow_node=None, slowdown=1.0):
    """Total seconds of a real schedule under the model (equals :func:`predict` when the
    chunks are even)."""
    return sum(step_times(schedule, alpha, beta, gamma, slow_node, slowdown))


def serial_terms(schedule):
    """(A, B, C) if every transfer ran one after another, as on one machine whose
    "devices" share the same cores and memory: messages, bytes moved, bytes added."""
    transfers = [t for step in schedule.steps for t in step.transfers]
    return (len(transfers), sum(t.nbytes for t in transfers),
            sum(t.nbytes for t in transfers if t.op == "add"))


def algbw(nbytes, seconds):
    """Algorithm bandwidth, bytes per second: the size of one node's array over the time."""
    check_range("nbytes", nbytes, 0)
    check_range("seconds", seconds, 0.0, low_open=True)
    return nbytes / seconds


def busbw(nbytes, seconds, num_nodes):
    """Bus bandwidth (nccl-tests): algbw * 2(N-1)/N, what each link actually carried."""
    check_count("num_nodes", num_nodes)
    return algbw(nbytes, seconds) * 2 * (num_nodes - 1) / num_nodes
