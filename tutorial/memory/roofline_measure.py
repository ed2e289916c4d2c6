"""This machine's roofline, measured in one process: peak FLOP/s, bandwidth, and the operations.

- peak FLOP/s: the fastest product of two d x d float32 matrices (2 d^3 FLOPs), by
  ``nd.dot`` (OpenBLAS) or ``FullyConnected`` (oneDNN where it is on, else OpenBLAS),
  whichever is faster here: the operation that can keep every arithmetic unit busy;
- bandwidth: the fastest copy of an array of ``nbytes`` into another (2 nbytes moved).
  The memory-bound operations use arrays of the same size, so on a machine with a large
  cache both measure the same level of the memory hierarchy;
- each operation of :mod:`tutorial.memory.roofline`, one MXNet call (or one allreduce
  over two CPU contexts), its FLOP/s its FLOPs over its fastest time;
- notebook 01's ladder as notebook 01 runs it: d*n dot products, n matrix-vector
  products, one matrix product, each rung's rate over all its calls (launch costs
  included, which the roofline leaves out).

Sizes are checked before anything is allocated, against stated limits that keep a
measurement to seconds and well under a gigabyte: matrices up to ``MAX_SIDE`` (4096) on
a side, vectors up to ``MAX_LENGTH`` (2**24) numbers, a copy of up to ``MAX_BYTES``
(256 MiB), and the ladder up to ``MAX_LADDER`` (256: it makes d * d calls).

Timings are the fastest of ``repeats`` (other programs only add time). The numbers
depend on the machine and its load: notebooks print them in ignored cells.
"""

import dataclasses

import mxnet as mx
import numpy as np
from mxnet import gluon, nd

from tutorial.memory import roofline
from tutorial.memory.roofline import best_seconds
from tutorial.parallel.collectives import bind
from tutorial.validate import check_count, check_range

MAX_SIDE = 4096          # d x d matrices: 64 MiB each, 137 GFLOPs a product
MAX_LENGTH = 2 ** 24     # vectors of n numbers: 64 MiB each, a dozen of them in operations
MAX_BYTES = 2 ** 28      # bandwidth's copy: two arrays of that many bytes
MAX_LADDER = 256         # ladder(d) makes d * d calls of nd.dot


def _size(name, value, limit, what, low=1):
    """``value`` if it is a whole number in [low, limit]; else a ValueError with the limit."""
    value = check_count(name, value, low=low)
    if value > limit:
        raise ValueError(f"{name}={value} is too large to measure here: use {name} <= {limit} "
                         f"({what})")
    return value


@dataclasses.dataclass(frozen=True)
class Point:
    operation: roofline.Operation
    seconds: float

    def __post_init__(self):
        check_range("seconds", self.seconds, 0.0, low_open=True)

    @property
    def flops_per_s(self):
        return self.operation.flops / self.seconds


def _array(shape, seed):
    return nd.array(np.random.default_rng(seed).normal(size=shape).astype(np.float32))


def peak_flops(d, repeats=5):
    """FLOP/s of the fastest d x d float32 matrix product (``nd.dot`` or ``FullyConnected``)."""
    d = _size("d", d, MAX_SIDE, "three d x d float32 matrices of 4 d^2 bytes, 2 d^3 FLOPs a "
                                "product; the notebook uses 1024 or 2048")
    A, B = _array((d, d), 0), _array((d, d), 1)
    products = (lambda: nd.dot(A, B), lambda: nd.FullyConnected(A, B, no_bias=True,
                                                                  num_hidden=d))
    return max(2 * d ** 3 / best_seconds(fn, repeats, nd.waitall) for fn in products)


def bandwidth(nbytes, repeats=5):
    """Bytes/s of the fastest copy of ``nbytes`` (read once, written once)."""
    nbytes = _size("nbytes", nbytes, MAX_BYTES, "two arrays of that many bytes", low=4)
    n = nbytes // 4
    x, y = _array((n,), 0), nd.zeros((n,))
    seconds = best_seconds(lambda: x.copyto(y), repeats, y.wait_to_read)
    return 2 * n * 4 / seconds


def operations(n, d, batch=64, units=1024, repeats=5):
    """One :class:`Point` per operation: vectors of n numbers, matrices d x d."""
    n = _size("n", n, MAX_LENGTH, "a dozen vectors of n float32 numbers")
    d = _size("d", d, MAX_SIDE, "two d x d float32 matrices and their product")
    batch, units = check_count("batch", batch), _size("units", units, MAX_SIDE, "a Dense layer")
    if batch * units > MAX_LENGTH:
        raise ValueError(f"batch={batch} x units={units} is {batch * units:,} numbers, more than "
                         f"{MAX_LENGTH:,} (64 MiB): use a batch of at most {MAX_LENGTH // units:,}")
    points = []
    x, x2 = _array((n,), 0), _array((n,), 1)
    side = int(np.sqrt(n))                                    # M x reads about n numbers
    M, v = _array((side, side), 2), _array((side,), 3)
    A, B = _array((d, d), 4), _array((d, d), 5)
    layer = gluon.nn.Dense(units, in_units=units)
    layer.initialize(mx.init.Xavier())
    X = _array((batch, units), 6)
    w, g, m, s = (_array((n,), i) for i in (7, 8, 9, 10))
    devices = [mx.cpu(0), mx.cpu(1)]
    grads = [_array((n,), 11).as_in_context(c) for c in devices]
    ring = bind(grads, "ring", out=[nd.zeros((n,), ctx=c) for c in devices])
    cases = [
        (roofline.dot(n), lambda: nd.dot(x, x2)),
        (roofline.matvec(side), lambda: nd.dot(M, v)),
        (roofline.matmul(d, d, d), lambda: nd.dot(A, B)),
        (roofline.dense(batch, units, units), lambda: layer(X)),
        (roofline.update("momentum", n),
         lambda: nd.sgd_mom_update(w, g, m, lr=0.01, momentum=0.9, out=w)),
        (roofline.update("adam", n),
         lambda: nd.adam_update(w, g, m, s, lr=0.01, out=w)),
        (roofline.ring_allreduce(n, 2), lambda: ring()),
    ]
    for op, fn in cases:
        points.append(Point(op, best_seconds(fn, repeats, nd.waitall)))
    return points


def ladder(d, repeats=3):
    """Notebook 01's three rungs for Y = M X (d x d times d x d): FLOP/s of each, all calls."""
    d = _size("d", d, MAX_LADDER, "the first rung makes d * d calls")
    M, X = _array((d, d), 0), _array((d, d), 1)
    rows, cols = [M[j] for j in range(d)], [X[:, i] for i in range(d)]
    rungs = [
        (roofline.dot(d), lambda: [nd.dot(r, c) for c in cols for r in rows]),
        (roofline.matvec(d), lambda: [nd.dot(M, c) for c in cols]),
        (roofline.matmul(d, d, d), lambda: nd.dot(M, X)),
    ]
    calls = [d * d, d, 1]
    return [Point(roofline.Operation(f"{op.name}, x{k}", op.flops * k, op.bytes * k),
                  best_seconds(fn, repeats, nd.waitall))
            for (op, fn), k in zip(rungs, calls)]
