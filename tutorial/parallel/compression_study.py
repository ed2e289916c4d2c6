"""Train the scaling job with each way of sending gradients; accuracy and bytes per step.

A scheme is what each worker sends and what it gets back:

- ``none``: 32-bit gradients, summed (MXNet's 'device' kvstore), SGD;
- ``2bit``: 2-bit quantised gradients with error feedback, summed, SGD (``source``
  'scratch' is ``compression.TwoBitAggregation``, 'mxnet' the compressed kvstore);
- ``sign``: signSGD with majority vote: signs up, the vote down (each -1, 0 or +1, so 2
  bits per value), the course's Signum (momentum 0) stepping by ``lr`` times the vote.

Bytes count the payload of one worker in one step (``compression.payload_bytes``):
what it pushes, and what it pulls back. With a parameter server MXNet compresses only
the push; the pull brings 32-bit weights.

>>> bytes_per_step([(64, 64), (64,)], "2bit")
(1040, 16640)
"""

import dataclasses
from typing import Tuple

import numpy as np

from tutorial.optim import create
from tutorial.parallel.compression import (MXNetTwoBitAggregation, TwoBitAggregation,
                                           payload_bytes)
from tutorial.parallel.sign_sgd import majority_aggregation
from tutorial.parallel.trainer import DataParallelTrainer

SOURCES = ("scratch", "mxnet")


def bytes_per_step(shapes, scheme):
    """``(push, pull)`` payload bytes of one worker in one step, for tensors ``shapes``."""
    sizes = [int(np.prod(s)) for s in shapes]
    push = sum(payload_bytes(n, scheme) for n in sizes)
    pull = sum(payload_bytes(n, "sign" if scheme == "sign" else "none") for n in sizes)
    return push, pull


def trainer_for(scheme, net, devices, learning_rate, threshold=0.5, source="scratch"):
    """A ``DataParallelTrainer`` that sends gradients as ``scheme`` says."""
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    if scheme == "none":
        return DataParallelTrainer(net, devices, "sgd", "device", learning_rate=learning_rate)
    if scheme == "2bit":
        aggregate = (TwoBitAggregation if source == "scratch" else MXNetTwoBitAggregation)
        return DataParallelTrainer(net, devices, "sgd", aggregate(threshold),
                                   learning_rate=learning_rate)
    if scheme == "sign":
        return DataParallelTrainer(net, devices, create("signum", momentum=0.0,
                                                        learning_rate=learning_rate),
                                   majority_aggregation)
    raise ValueError(f"scheme must be 'none', '2bit' or 'sign', got {scheme!r}")


@dataclasses.dataclass(frozen=True)
class CompressionRun:
    scheme: str
    learning_rate: float
    threshold: float              # 2bit only (NaN otherwise)
    push_bytes: int               # per worker per step
    pull_bytes: int
    losses: Tuple[float, ...]     # mean training loss of each step
    accuracy: float               # of the final model on held-out digits
    params: Tuple[np.ndarray, ...]


def train_scheme(job, devices, scheme, learning_rate=None, threshold=0.5, source="scratch"):
    """Train ``job`` (a ``ScalingJob``) on ``devices`` with ``scheme``."""
    if len(devices) != job.workers:
        raise ValueError(f"the job has {job.workers} workers but {len(devices)} devices "
                         f"were given: pass one device per worker")
    lr = job.learning_rate if learning_rate is None else learning_rate
    net = job.net()
    trainer = trainer_for(scheme, net, devices, lr, threshold, source)
    batches, losses = job.batches(), []
    for _ in range(job.steps):
        X, y = next(batches)
        losses.append(trainer.step(X, y, timed=False).loss)
    params = tuple(p.list_data()[0].asnumpy() for p in trainer.params)
    push, pull = bytes_per_step([p.shape for p in params], scheme)
    return CompressionRun(scheme, lr, threshold if scheme == "2bit" else float("nan"),
                          push, pull, tuple(losses), job.evaluate(net), params)
