"""The lecture's "identical numerical result", measured.

K devices with b samples each must end where one device with K*b samples ends. The
reference is MXNet's own ``gluon.Trainer`` on ONE device (no kvstore involved), fed the
same batches from the same starting weights; the candidate is our from-scratch trainer
or ``gluon.Trainer`` on K devices. Only the order of float32 additions differs, so the
parameters agree to about 1e-7 relative, far inside 1e-5.

>>> import mxnet as mx
>>> r = compare(trainer="scratch", aggregation="local", devices=[mx.cpu(0), mx.cpu(1)],
...             per_device_batch=8, steps=5)
>>> r.relative_difference < 1e-5
True
"""

import dataclasses

from tutorial.compare import relative_difference
from tutorial.parallel.concise import GluonDataParallel
from tutorial.parallel.trainer import DataParallelTrainer
from tutorial.parallel.workload import digits_batches, mlp
from tutorial.validate import check_count


@dataclasses.dataclass(frozen=True)
class Comparison:
    trainer: str
    aggregation: str
    devices: int
    total_batch: int
    steps: int
    relative_difference: float   # tutorial.compare: max over parameters of max|a - b| / max|b|
    final_loss: float


def parameters(net):
    """``{name: NumPy array}`` of the weights held on ``net``'s first device."""
    return {name: p.list_data()[0].asnumpy() for name, p in net.collect_params().items()}


def train(make, net, batches, steps):
    """Run ``steps`` steps of the trainer ``make(net)`` and return its last report."""
    trainer = make(net)
    for _ in range(steps):
        X, y = next(batches)
        report = trainer.step(X, y, timed=False)
    return report


def _total_batch(devices, per_device_batch, total_batch):
    """The total batch of one step, checked before any training starts."""
    if not devices:
        raise ValueError("devices is empty: pass a list of contexts, e.g. [mx.cpu(0), mx.cpu(1)]")
    if total_batch is not None:
        return check_count("total_batch", total_batch, low=len(devices),
                           what=f"at least one sample for each of the {len(devices)} devices")
    if per_device_batch is None:
        raise ValueError("give per_device_batch (samples per device) or total_batch")
    return check_count("per_device_batch", per_device_batch) * len(devices)


def compare(trainer, aggregation, devices, per_device_batch=None, steps=20, total_batch=None,
            hidden=(32,), seed=0, optimizer="sgd", **optimizer_params):
    """Train K devices and one device on the same batches; how far apart do they end?

    ``trainer`` is 'scratch' (``DataParallelTrainer``) or 'gluon' (``gluon.Trainer``
    with kvstore ``aggregation``). Give ``per_device_batch`` (even split) or
    ``total_batch`` (uneven splits allowed). ``optimizer`` and its settings (MXNet names;
    default ``learning_rate=0.1``) are the same for both sides.
    """
    if trainer not in ("scratch", "gluon"):
        raise ValueError(f"trainer must be 'scratch' or 'gluon', got {trainer!r}")
    total = _total_batch(devices, per_device_batch, total_batch)
    steps = check_count("steps", steps)
    optimizer_params.setdefault("learning_rate", 0.1)
    reference = mlp(hidden=hidden, seed=seed)
    train(lambda net: GluonDataParallel(net, devices[:1], optimizer, kvstore=None,
                                        **optimizer_params),
          reference, digits_batches(total, seed=seed), steps)
    if trainer == "scratch":
        make = lambda net: DataParallelTrainer(net, devices, optimizer,  # noqa: E731
                                               aggregation=aggregation, **optimizer_params)
    else:
        make = lambda net: GluonDataParallel(net, devices, optimizer,  # noqa: E731
                                             kvstore=aggregation, **optimizer_params)
    candidate = mlp(hidden=hidden, seed=seed)
    report = train(make, candidate, digits_batches(total, seed=seed), steps)
    return Comparison(trainer, aggregation, len(devices), total, steps,
                      relative_difference(parameters(candidate), parameters(reference)),
                      report.loss)
