"""Local SGD and post-local SGD (Lin et al., 2020): average the weights every H steps.

Synchronous SGD averages after every step (one communication round per step). Local SGD
gives up that consistency: K workers, each with its own copy of the weights, take H SGD
steps on their own minibatches, and only then average their weights::

    for t = 1 .. T:
        every worker k:  w_k <- w_k - lr * grad(w_k; its b samples of step t)
        if t is an averaging step:  w_k <- (1/K) sum_j w_j   for every k   (one round)

Post-local SGD averages after every step up to ``switch`` (the coupled phase), then
every H steps (the decoupled phase). The last step always averages, so a run ends with
one model. With H = 1 every step averages, and the average of K plain SGD steps taken
from the same weights IS one SGD step on the combined batch of K*b samples: local SGD
with H = 1 is synchronous SGD (``tests/parallel/test_local_sgd.py`` checks it against
the course's ``DataParallelTrainer``).

The workers are devices (``mx.cpu(i)`` standing in for GPUs): worker k's weights are
the net's copy on device k, so the net's replicas simply stop being equal between rounds.

>>> averaging_steps(steps=8, period=4)
(4, 8)
>>> averaging_steps(steps=8, period=4, switch=3)
(1, 2, 3, 7, 8)
>>> averaging_steps(steps=6, period=4)            # the last step always averages
(4, 6)
"""

import dataclasses
from typing import Tuple

import mxnet as mx
import numpy as np

from tutorial.batch_checks import batch_stream, next_batch
from tutorial.devices import check_devices
from tutorial.finite import check_parameters
from tutorial.parallel.aggregation import make_aggregator
from tutorial.parallel.trainer import forward_on_devices, make_optimizer, replicate
from tutorial.validate import check_count


def averaging_steps(steps, period, switch=0):
    """The steps (1-based) after which the workers average: every step up to ``switch``,
    then every ``period`` steps counted from the switch, and always the last step."""
    steps = check_count("steps", steps, what="SGD steps per worker")
    period = check_count("period", period, what="local steps between averages (H)")
    switch = check_count("switch", switch, low=0,
                         what="synchronous steps before local SGD starts (0: none)")
    return tuple(t for t in range(1, steps + 1)
                 if t <= switch or (t - switch) % period == 0 or t == steps)


class LocalSGD:
    """K workers on ``devices``, each updating its own copy; ``average()`` makes them equal.

    ``step(X, y)`` splits the batch over the workers (worker k takes the k-th shard) and
    lets every worker take one SGD step on its shard's mean loss; it returns the batch's
    mean loss and accuracy (each shard measured on its own worker's weights).
    ``average()`` is one communication round: it sums the copies with ``aggregation``
    (a kvstore or one of the course's allreduces) and divides by K.
    """

    def __init__(self, net, devices, optimizer="sgd", aggregation="device", loss=None,
                 **optimizer_params):
        self.net = net
        self.devices = check_devices(devices)
        self.loss_fn = loss or mx.gluon.loss.SoftmaxCrossEntropyLoss()
        self.params = [p for p in net.collect_params().values() if p.grad_req != "null"]
        replicate(self.params, self.devices)
        self._optimizers = [make_optimizer(optimizer, dict(optimizer_params))
                            for _ in self.devices]          # one state per worker
        self._updaters = [mx.optimizer.get_updater(o) for o in self._optimizers]
        self._sum = make_aggregator(aggregation, self.devices)
        self.steps_done = self.rounds = 0

    def step(self, X, y):
        if len(X) % len(self.devices):
            raise ValueError(f"a batch of {len(X)} samples does not split evenly over "
                             f"{len(self.devices)} workers: use a multiple of {len(self.devices)}")
        lr = self._optimizers[0].learning_rate
        loss, accuracy = forward_on_devices(self.net, self.loss_fn, X, y, self.devices,
                                            self.params, self.steps_done + 1, lr)
        check_parameters(self.params, self.steps_done + 1, lr, all_devices=True)
        shard = len(X) // len(self.devices)
        for k, (updater, optimizer) in enumerate(zip(self._updaters, self._optimizers)):
            optimizer.rescale_grad = 1.0 / shard     # its own shard's mean loss
            for index, param in enumerate(self.params):
                updater(index, param.list_grad()[k], param.list_data()[k])
        self.steps_done += 1
        return loss, accuracy

    def average(self):
        weights = [p.list_data() for p in self.params]
        self._sum(weights)                           # every copy now holds the sum
        for copies in weights:
            for w in copies:
                w /= len(self.devices)
        self.rounds += 1

    def spread(self):
        """Largest distance between a worker's weights and worker 0's (0 right after a round)."""
        return max(float(mx.nd.norm(p.list_data()[k].as_in_context(p.list_data()[0].context)
                                     - p.list_data()[0]).asscalar())
                   for p in self.params for k in range(1, len(self.devices)))


@dataclasses.dataclass(frozen=True)
class LocalSGDRun:
    period: int                   # H: local steps between averages (1: synchronous SGD)
    switch: int                   # synchronous steps first (post-local SGD); 0: none
    steps: int
    rounds: int                   # communication rounds (weight averages) taken
    losses: Tuple[float, ...]     # mean training loss of each step
    spreads: Tuple[float, ...]    # worker spread just before each round
    accuracy: float               # of the final averaged model on held-out digits
    params: Tuple[np.ndarray, ...]


def train_local_sgd(net, devices, batches, steps, period, switch=0, evaluate=None,
                    aggregation="device", **optimizer_params):
    """Run local SGD (``period`` = H) or post-local SGD (``switch`` > 0) for ``steps``.

    ``batches`` yields global batches of K*b samples, at least ``steps`` of them; a NaN or
    infinity in a loss, gradient or weight stops it with ``TrainingDiverged`` before that
    step's update (as the other trainers). ``evaluate(net)`` gives the final
    model's accuracy (NaN when None). Returns a :class:`LocalSGDRun`.
    """
    schedule = set(averaging_steps(steps, period, switch))
    workers = LocalSGD(net, devices, aggregation=aggregation, **optimizer_params)
    losses, spreads, batches = [], [], batch_stream(batches)
    for t in range(1, steps + 1):
        X, y = next_batch(batches, t, steps, "ScalingJob.batches()")
        losses.append(workers.step(X, y)[0])
        if t in schedule:
            spreads.append(workers.spread())
            workers.average()
    accuracy = float("nan") if evaluate is None else evaluate(net)
    return LocalSGDRun(period, switch, steps, workers.rounds, tuple(losses), tuple(spreads),
                       accuracy, tuple(p.list_data()[0].asnumpy() for p in workers.params))


