"""Throughput scaling: images per second on K devices against K times one device.

The lecture's yardstick for data parallelism: with K devices, each keeping its batch of
b images, the throughput should ideally grow as tau_K = K * tau_ref images/s, where
tau_ref is one device with the same b. We report the scaling efficiency

    efficiency(K, b) = tau_K / (K * tau_ref)          1.0: perfect, 1/K: no gain at all

(weak scaling: the total batch K*b grows with K). On GPUs it is what the speed-up is
made of; on CPU contexts standing in for GPUs the K devices share the same cores, so
tau_K cannot exceed tau_1 and the efficiency shows the overhead of splitting and
aggregating, at most about 1/K.

Two kinds of input: ``real`` batches are drawn from MNIST-5k each step (shuffle, index,
copy); ``synthetic`` is one random batch of the same shape made once and fed every step,
so the difference between the two is the cost of getting real data in.

A measurement is a few warm-up steps (first kernels, kvstore set-up), then ``steps``
steps between two reads of the clock, each after waiting for the devices. ``clock`` and
``wait`` are arguments, so the bookkeeping is tested with a fake clock:

>>> ticks = iter([10.0, 12.0])
>>> m = measure(lambda X, y: None, synthetic_batches(4), steps=5, warmup=1,
...             clock=lambda: next(ticks), wait=lambda: None)
>>> m.images, m.seconds, m.images_per_s
(20, 2.0, 10.0)
>>> efficiency(tau_k=30.0, k=2, tau_ref=20.0)
0.75
"""

import dataclasses
import time

import numpy as np

from tutorial.nn.resnet import IMAGE_SHAPE
from tutorial.validate import check_count, check_range

INPUTS = ("real", "synthetic")


@dataclasses.dataclass(frozen=True)
class Measurement:
    images: int          # images processed between the two clock reads
    seconds: float

    @property
    def images_per_s(self):
        return self.images / self.seconds if self.seconds > 0 else float("inf")


def synthetic_batches(batch_size, seed=0, classes=10):
    """One random batch of images and labels, made once and yielded forever."""
    batch_size = check_count("batch_size", batch_size, what="images per batch")
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(batch_size,) + IMAGE_SHAPE).astype(np.float32)
    y = rng.integers(0, classes, size=batch_size).astype(np.int32)
    while True:
        yield X, y


def measure(step, batches, steps, warmup=2, clock=time.perf_counter, wait=None):
    """Time ``steps`` calls of ``step(X, y)`` after ``warmup`` untimed ones.

    ``wait()`` runs before each clock read (default ``mx.nd.waitall``: MXNet is
    asynchronous, and unfinished work must not leak into or out of the timed window).
    """
    steps = check_count("steps", steps, what="timed steps")
    warmup = check_count("warmup", warmup, low=0, what="untimed steps first")
    if wait is None:
        import mxnet as mx
        wait = mx.nd.waitall
    for _ in range(warmup):
        step(*next(batches))
    wait()
    start, images = clock(), 0
    for _ in range(steps):
        X, y = next(batches)
        step(X, y)
        images += len(X)
    wait()
    return Measurement(images, clock() - start)


def efficiency(tau_k, k, tau_ref):
    """tau_K / (K * tau_ref): the fraction of perfect linear scaling reached (both
    throughputs in images/s, finite; tau_ref > 0)."""
    k = check_count("k", k, what="devices")
    tau_k = check_range("tau_k", tau_k, 0.0)
    tau_ref = check_range("tau_ref", tau_ref, 0.0, low_open=True)
    return tau_k / (k * tau_ref)


@dataclasses.dataclass(frozen=True)
class ScalingRow:
    inputs: str               # 'real' or 'synthetic'
    per_device_batch: int
    devices: int
    images_per_s: float       # tau_K
    efficiency: float         # tau_K / (K * tau_1), tau_1: one device, same inputs and b


def scaling_table(measurements):
    """Rows with efficiencies from ``{(inputs, b, K): Measurement}``; K = 1 is the reference.

    >>> ms = {("real", 8, 1): Measurement(80, 1.0), ("real", 8, 2): Measurement(80, 0.8)}
    >>> [(r.devices, r.images_per_s, r.efficiency) for r in scaling_table(ms)]
    [(1, 80.0, 1.0), (2, 100.0, 0.625)]
    """
    rows = []
    for (inputs, b, k), m in sorted(measurements.items()):
        ref = measurements.get((inputs, b, 1))
        if ref is None:
            raise ValueError(f"no one-device reference for inputs={inputs!r}, per-device "
                             f"batch {b}: measure K = 1 with the same inputs and batch too")
        rows.append(ScalingRow(inputs, b, k, m.images_per_s,
                               efficiency(m.images_per_s, k, ref.images_per_s)))
    return rows


def measure_scaling(make_step, device_counts, per_device_batches, inputs=INPUTS, steps=20,
                    warmup=2, make_devices=None, real_batches=None, on_measured=None,
                    repeats=3, clock=time.perf_counter, wait=None):
    """Throughput for every (inputs, b, K); returns :func:`scaling_table`'s rows.

    Every (inputs, b, K) is measured ``repeats`` times, the rounds going over all of them
    in turn, and the fastest round counts: on a shared machine a burst of other work
    slows one round, and it should not decide a ratio.

    ``make_step(devices)`` builds a fresh trainer and returns its ``step(X, y)``;
    ``make_devices(k)`` gives k devices (default ``tutorial.devices.training_devices``);
    ``real_batches(batch_size)`` the real input (default MNIST-5k). K = 1 is always
    measured, as the reference. ``on_measured(key, measurement)`` reports progress;
    ``clock`` and ``wait`` go to :func:`measure`.
    """
    if make_devices is None:
        from tutorial.devices import training_devices as make_devices
    if real_batches is None:
        from tutorial.parallel.workload import mnist_batches as real_batches
    for kind in inputs:
        if kind not in INPUTS:
            raise ValueError(f"inputs {kind!r}: use 'real' and/or 'synthetic'")
    counts = sorted({1} | {check_count("device count", k) for k in device_counts})
    keys = [(kind, check_count("per_device_batch", b), k)
            for kind in inputs for b in per_device_batches for k in counts]
    best = {}
    for _ in range(check_count("repeats", repeats, what="rounds of measurements")):
        for kind, b, k in keys:
            source = real_batches if kind == "real" else synthetic_batches
            m = measure(make_step(make_devices(k)), source(b * k), steps, warmup, clock, wait)
            if (kind, b, k) not in best or m.images_per_s > best[kind, b, k].images_per_s:
                best[kind, b, k] = m
            if on_measured is not None:
                on_measured((kind, b, k), m)
    return scaling_table(best)
