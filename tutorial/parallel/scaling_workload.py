"""The job the scaling-out studies train: the digits MLP, K workers, held-out accuracy.

Local SGD and gradient compression are judged by one number besides communication: the
accuracy of the final model on digits it never trained on. So the 1,797 digits are split
once (20 % held out, seed 0); every run draws its global batches of K*b samples from the
other 80 % with the same seed, and starts from the same weights.

>>> job = ScalingJob(steps=4, batch_per_worker=8, workers=2)
>>> X, y = next(job.batches())
>>> X.shape, job.total_batch
((16, 64), 16)
>>> len(job.held_out()[1])
359
"""

import dataclasses
from typing import Tuple

import mxnet as mx
import numpy as np

from tutorial.data import load_digits, train_val_split
from tutorial.parallel.workload import digits_batches, mlp
from tutorial.validate import check_count, check_range


@dataclasses.dataclass(frozen=True)
class ScalingJob:
    steps: int = 64
    batch_per_worker: int = 16          # b: samples per worker per step
    workers: int = 4                    # K
    learning_rate: float = 0.1
    hidden: Tuple[int, ...] = (64,)
    seed: int = 0                       # weights and batch order

    def __post_init__(self):
        object.__setattr__(self, "hidden", tuple(self.hidden))
        check_count("steps", self.steps, what="SGD steps")
        check_count("batch_per_worker", self.batch_per_worker, what="samples per worker")
        check_count("workers", self.workers, what="workers (devices)")
        check_range("learning_rate", self.learning_rate, 0.0, low_open=True)

    @property
    def total_batch(self):
        return self.workers * self.batch_per_worker

    def split(self):
        X, y = load_digits()
        return train_val_split(X, y, val_fraction=0.2, seed=0)

    def batches(self):
        """Endless global batches of K*b training digits, the same for every run."""
        X_train, y_train, _, _ = self.split()
        return digits_batches(self.total_batch, seed=self.seed, data=(X_train, y_train))

    def held_out(self):
        return self.split()[2:]

    def net(self):
        return mlp(hidden=self.hidden, seed=self.seed)

    def evaluate(self, net):
        """Accuracy of ``net`` (its copy on its first device) on the held-out digits."""
        X, y = self.held_out()
        ctx = net.collect_params().list_ctx()[0]
        predicted = net(mx.nd.array(X, ctx=ctx)).argmax(axis=1).asnumpy()
        return float(np.mean(predicted == y))
