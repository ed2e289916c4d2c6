"""The roofline: which operations the arithmetic units limit, and which the memory does.

An operation does F floating-point operations (a multiply-add counts as 2) and moves B
bytes between memory and the processor (each input read once, each output written once:
the least it must move). Its **arithmetic intensity** is I = F / B FLOPs per byte, and
on a machine with peak P FLOP/s and memory bandwidth W bytes/s it cannot run faster than

    attainable(I) = min(P, I * W)               (S. Williams, A. Waterman and D. Patterson,
                                                 "Roofline", CACM 52(4), 2009)

Left of the ridge I* = P / W an operation waits for memory; right of it, for arithmetic.
Counted from shapes (float32, 4 bytes; d x d matrices, length-n vectors):

=====================  ====================  ==========================  ============
operation              FLOPs                 bytes                       I (d = n)
=====================  ====================  ==========================  ============
<x, x'>                2n                    (2n + 1) 4                  ~ 1/4
M x                    2d^2                  (d^2 + 2d) 4                ~ 1/2
M X  (d x d, d x n)    2 d^2 n               (2 d^2 + d n) 4 ... 3d^2 4  d / 6
Dense, batch b         2 b i o + b o         (b i + i o + o + b o) 4     grows with b
SGD update             2 per weight          3 x 4 per weight            1/6
momentum update        4 per weight          5 x 4 per weight            1/5
Adam update            12 per weight         7 x 4 per weight            3/7
ring allreduce, node   (N-1)/N n adds        (N-1)/N n (3 + 2) 4         1/20
=====================  ====================  ==========================  ============

A matrix product reuses each number it loads d times, so its intensity grows with d;
a dot product or an optimizer update uses each number once, so no size helps: that is
why notebook 01's ladder climbs (on top of it, the small operations pay a launch cost
per call, which the roofline leaves out). The allreduce counts memory traffic on one
machine: each added element reads two numbers and writes one, each copied one reads
one and writes one.

>>> [(op.flops, op.bytes) for op in (dot(1000), matvec(1000), sgd_update(10))]
[(2000, 8004), (2000000, 4008000), (20, 120)]
>>> [str(op.intensity_fraction()) for op in (dot(1000), matvec(1000), sgd_update(10))]
['500/2001', '250/501', '1/6']
>>> matmul(512, 512, 512).intensity
85.33333333333333
>>> attainable(0.5, peak=100e9, bandwidth=10e9), attainable(85.0, peak=100e9, bandwidth=10e9)
(5000000000.0, 100000000000.0)
"""

import dataclasses
import fractions
import time

from tutorial.validate import check_count, check_range

FLOAT32 = 4


@dataclasses.dataclass(frozen=True)
class Operation:
    name: str
    flops: int           # floating-point operations (a multiply-add is 2)
    bytes: int           # bytes it must read and write at least

    def __post_init__(self):
        check_count("flops", self.flops, low=0)
        check_count("bytes", self.bytes, what="an operation reads or writes something")

    @property
    def intensity(self):
        return self.flops / self.bytes

    def intensity_fraction(self):
        return fractions.Fraction(self.flops, self.bytes)


def dot(n, itemsize=FLOAT32):
    """<x, x'> of two length-n vectors: n multiply-adds, reads 2n numbers, writes 1."""
    check_count("n", n)
    return Operation(f"<x, x'> (n={n})", 2 * n, (2 * n + 1) * itemsize)


def matvec(d, itemsize=FLOAT32):
    """M x for a d x d matrix: reads d^2 + d numbers, writes d."""
    check_count("d", d)
    return Operation(f"M x (d={d})", 2 * d * d, (d * d + 2 * d) * itemsize)


def matmul(m, k, n, itemsize=FLOAT32):
    """(m x k) times (k x n): reads mk + kn numbers, writes mn."""
    for name, v in (("m", m), ("k", k), ("n", n)):
        check_count(name, v)
    return Operation(f"M X ({m}x{k} . {k}x{n})", 2 * m * k * n,
                     (m * k + k * n + m * n) * itemsize)


def dense(batch, in_units, out_units, itemsize=FLOAT32):
    """A Dense layer's forward: X W^T (a matmul) plus the bias, read once, added b*o times."""
    mm = matmul(batch, in_units, out_units, itemsize)
    return Operation(f"Dense {in_units}->{out_units} (batch {batch})",
                     mm.flops + batch * out_units, mm.bytes + out_units * itemsize)


UPDATES = {  # name: (FLOPs per weight, numbers read + written per weight)
    "sgd": (2, 3),          # w -= lr g                                   read w, g; write w
    "momentum": (4, 5),     # v = mu v + g; w -= lr v                      read w, g, v; write w, v
    "adam": (12, 7),        # m, v moments (3 + 4), w -= lr m / (sqrt v + eps) (5)
}


def update(name, size, itemsize=FLOAT32):
    """One optimizer step over ``size`` weights (counts per weight in ``UPDATES``)."""
    if name not in UPDATES:
        raise ValueError(f"update must be one of {', '.join(UPDATES)}, got {name!r}")
    flops, numbers = UPDATES[name]
    check_count("size", size)
    return Operation(f"{name} update ({size} weights)", flops * size, numbers * size * itemsize)


def sgd_update(size, itemsize=FLOAT32):
    return update("sgd", size, itemsize)


def ring_allreduce(n, num_nodes, itemsize=FLOAT32):
    """One node's share of a ring allreduce of n numbers, as memory traffic on one machine."""
    check_count("num_nodes", num_nodes, low=2)
    check_count("n", n, low=num_nodes, what="at least one number per node")
    moved = n * (num_nodes - 1) // num_nodes
    return Operation(f"ring allreduce (n={n}, N={num_nodes})", moved, moved * 5 * itemsize)


def attainable(intensity, peak, bandwidth):
    """min(peak, intensity * bandwidth): the roofline at ``intensity``, in FLOP/s."""
    check_range("intensity", intensity, 0.0, low_open=True)
    check_range("peak", peak, 0.0, low_open=True)
    check_range("bandwidth", bandwidth, 0.0, low_open=True)
    return min(peak, intensity * bandwidth)


def best_seconds(fn, repeats, wait):
    """Fastest of ``repeats`` timed calls of ``fn`` (after one warm-up), ``wait()`` after each."""
    check_count("repeats", repeats)
    fn()
    wait()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        wait()
        best = min(best, time.perf_counter() - start)
    return best
