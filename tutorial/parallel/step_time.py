"""Time per step against per-device batch, and a compute/communication model fitted to it.

The course notes ask: total batch 1024, 1024 nodes of 1 or 16 nodes of 64? Each step a
device computes on its b samples, then the devices exchange one gradient per parameter,
whose size does not depend on b. We measure both with our trainer and fit

    compute(b) = fixed + per_sample * b          (least squares over the measured b)
    communication = median measured aggregation  (the same for every b)
    update = median measured update              (the same for every b)

A framework that sends each layer's gradient as soon as backward produces it (the
lecture's IntelCaffe, MXNet's kvstore with priorities) overlaps the two, so a step
takes about ``max(compute, communication)`` instead of their sum: communication *hides
behind computation* once ``compute(b) >= communication``, i.e. from
``b >= (communication - fixed) / per_sample``.

>>> model = StepTimeModel(fixed_s=1e-3, per_sample_s=1e-4, communication_s=3e-3)
>>> round(model.hidden_from(), 6)          # (3 ms - 1 ms) / 0.1 ms per sample
20.0
>>> round(model.communication_share(1), 3), round(model.communication_share(64), 3)
(0.732, 0.288)
>>> m = fit([Measurement(2, b, 1e-3 + 1e-4 * b, 3e-3, 0.0, 4e-3 + 1e-4 * b) for b in (1, 4, 16)])
>>> round(m.fixed_s, 9), round(m.per_sample_s, 9), m.communication_s
(0.001, 0.0001, 0.003)
"""

import dataclasses
import statistics

import numpy as np

from tutorial.parallel.trainer import DataParallelTrainer
from tutorial.parallel.workload import digits_batches, mlp
from tutorial.validate import check_count


@dataclasses.dataclass(frozen=True)
class Measurement:
    devices: int
    per_device_batch: int
    compute_s: float       # fastest of the measured steps (other programs only add time)
    aggregate_s: float
    update_s: float
    total_s: float

    @property
    def time_per_sample_s(self):
        """Wall time per sample of the whole step (all devices work at once)."""
        return self.total_s / (self.devices * self.per_device_batch)

    @property
    def device_time_per_sample_s(self):
        """Device-seconds per sample: what each sample costs in hardware time."""
        return self.total_s / self.per_device_batch


def measure(devices, per_device_batches, steps=10, warmup=2, hidden=(512, 512),
            aggregation="device", seed=0):
    """Phase times of our trainer for each per-device batch size (each the fastest step).

    The sizes take turns, one step each, so that a burst of load from other programs
    slows all of them alike instead of spoiling one.
    """
    if not devices:
        raise ValueError("devices is empty: pass a list of contexts, e.g. [mx.cpu(0), mx.cpu(1)]")
    if not isinstance(per_device_batches, (list, tuple, range, np.ndarray)) \
            or len(per_device_batches) == 0:
        raise ValueError(f"per_device_batches must be a list of batch sizes such as [1, 8, 64], "
                         f"got {per_device_batches!r}")
    per_device_batches = [check_count("per_device_batch", b) for b in per_device_batches]
    steps, warmup = check_count("steps", steps), check_count("warmup", warmup, low=0)
    batches = {b: digits_batches(b * len(devices), seed=seed) for b in per_device_batches}
    trainers, reports = {}, {}
    for b in per_device_batches:
        trainers[b] = DataParallelTrainer(mlp(hidden, seed=seed), devices,
                                          aggregation=aggregation, learning_rate=0.01)
        reports[b] = []
    for i in range(warmup + steps):
        for b in per_device_batches:
            report = trainers[b].step(*next(batches[b]))
            if i >= warmup:
                reports[b].append(report)
    return [Measurement(len(devices), b, **{
        field: min(getattr(r, field) for r in reports[b])
        for field in ("compute_s", "aggregate_s", "update_s", "total_s")})
        for b in per_device_batches]


@dataclasses.dataclass(frozen=True)
class StepTimeModel:
    fixed_s: float            # compute time that does not grow with the batch
    per_sample_s: float       # compute time per sample on one device
    communication_s: float    # aggregating the gradients, once per step
    update_s: float = 0.0     # the optimizer update (and broadcast), once per step

    def compute_s(self, b):
        return self.fixed_s + self.per_sample_s * np.asarray(b, dtype=float)

    def step_s(self, b, overlap=True):
        """Step time: max(compute, comm) when they overlap, their sum when they do not;
        plus the update, which needs the aggregated gradient and so cannot overlap."""
        compute = self.compute_s(b)
        if overlap:
            return np.maximum(compute, self.communication_s) + self.update_s
        return compute + self.communication_s + self.update_s

    def communication_share(self, b):
        """Fraction of a step (no overlap) spent communicating."""
        return float(self.communication_s / self.step_s(b, overlap=False))

    def hidden_from(self):
        """Smallest per-device batch (real-valued) from which communication is hidden."""
        if self.per_sample_s <= 0:
            return float("inf") if self.fixed_s < self.communication_s else 0.0
        return max(0.0, (self.communication_s - self.fixed_s) / self.per_sample_s)

    def is_hidden(self, b):
        return bool(self.compute_s(b) >= self.communication_s)


def fit(measurements):
    """Least-squares ``compute = fixed + per_sample * b``; communication, update = medians."""
    b = np.array([m.per_device_batch for m in measurements], dtype=float)
    compute = np.array([m.compute_s for m in measurements])
    if len(set(b)) < 2:
        raise ValueError("fit needs measurements at two or more per-device batch sizes")
    per_sample, fixed = np.polyfit(b, compute, 1)
    comm = statistics.median(m.aggregate_s for m in measurements)
    update = statistics.median(m.update_s for m in measurements)
    return StepTimeModel(float(fixed), float(per_sample), float(comm), float(update))


@dataclasses.dataclass(frozen=True)
class Layout:
    """One way to split a fixed total batch: ``nodes`` devices of ``per_device_batch``."""
    nodes: int
    per_device_batch: int
    compute_s: float
    communication_s: float
    step_s: float                  # with overlap: max(compute, communication)
    communication_share: float     # of a step without overlap
    hidden: bool                   # does communication hide behind computation?
    device_s_per_sample: float     # nodes * step / total batch: hardware time per sample


def layouts(model, total_batch, per_device_batches, communication=None):
    """The model's verdict on each split of ``total_batch`` (e.g. 1024 as 1024x1 or 16x64).

    ``communication(nodes)`` gives the aggregation time for that many nodes; by default
    the model's measured (constant) one.
    """
    check_count("total_batch", total_batch)
    rows = []
    for b in per_device_batches:
        nodes = total_batch // check_count("per_device_batch", b)
        if nodes * b != total_batch:
            raise ValueError(f"{total_batch} is not a multiple of per-device batch {b}")
        comm = model.communication_s if communication is None else float(communication(nodes))
        m = dataclasses.replace(model, communication_s=comm)
        step = float(m.step_s(b))
        rows.append(Layout(nodes, b, float(m.compute_s(b)), comm, step,
                           m.communication_share(b), m.is_hidden(b), nodes * step / total_batch))
    return rows
