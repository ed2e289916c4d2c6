"""The job each worker of the cluster runs: a small MLP on the 8x8 digits.

Every worker draws the same sequence of global batches of ``W * b`` samples (same
seed), and the worker with kvstore rank ``r`` trains on rows ``r*b : (r+1)*b``. Each
calls ``trainer.step(n)`` with the ``n`` that makes the servers' update (they sum the W
gradients, then scale by ``1 / n``) exactly what one process does with the whole global
batch; which ``n`` that is, is notebook 07's exercise. :func:`train` is that one process
too (``kvstore=None, rank=0, num_workers=1`` with ``batch_per_worker = W*b``).

>>> job = DigitsJob(steps=2, batch_per_worker=8, hidden=(16,))
>>> out = train(job, kvstore=None, rank=0, num_workers=1, log=lambda line: None)
>>> len(out["losses"]), [p.shape for p in out["params"]]
(2, [(16, 64), (16,), (10, 16), (10,)])
>>> DigitsJob.from_json(job.to_json()) == job
True
"""

import dataclasses
import json
import time
from typing import Optional, Tuple

from tutorial.validate import check_count, check_range


@dataclasses.dataclass(frozen=True)
class DigitsJob:
    steps: int = 20
    batch_per_worker: int = 32          # b: samples per worker per step
    learning_rate: float = 0.5
    hidden: Tuple[int, ...] = (64,)
    seed: int = 0                       # weights and batch order
    crash_worker: Optional[int] = None  # launch index of a worker that fails on purpose
    crash_after_step: int = 0           # ... right after finishing this step
    compression_threshold: Optional[float] = None   # 2-bit gradient compression (None: off)

    def __post_init__(self):
        """Every field checked here, in the launcher, before any process starts: a NaN
        learning rate would otherwise train NaN weights on every worker."""
        if not isinstance(self.hidden, (tuple, list)):
            raise ValueError(f"DigitsJob.hidden must be a list of layer widths such as (64,), "
                             f"got {self.hidden!r}")
        object.__setattr__(self, "hidden", tuple(
            check_count(f"DigitsJob.hidden[{i}]", h, what="units") for i, h in
            enumerate(self.hidden)))
        check_count("DigitsJob.steps", self.steps)
        check_count("DigitsJob.batch_per_worker", self.batch_per_worker)
        check_range("DigitsJob.learning_rate", self.learning_rate, 0.0)   # 0: weights stay
        check_count("DigitsJob.seed", self.seed, low=0)
        if self.crash_worker is not None:
            check_count("DigitsJob.crash_worker", self.crash_worker, low=0,
                        what="launch index of the worker to crash, or None")
        check_count("DigitsJob.crash_after_step", self.crash_after_step, low=0)
        if self.compression_threshold is not None:
            check_range("DigitsJob.compression_threshold", self.compression_threshold, 0.0,
                        low_open=True)

    def to_json(self):
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text):
        return cls(**json.loads(text))


def global_batches(job, num_workers):
    """The global batches ``(X, y)`` of ``num_workers * batch_per_worker`` samples."""
    from tutorial.parallel.workload import digits_batches
    return digits_batches(batch_size=num_workers * job.batch_per_worker, seed=job.seed)


def train(job, kvstore, rank, num_workers, worker_index=None, log=print):
    """Train ``job`` as worker ``rank`` of ``num_workers``; return losses and final weights.

    ``kvstore``: a kvstore object or name for ``gluon.Trainer`` (``None`` for one
    process). Prints ``step N loss L`` after every step (the launcher reads it).
    ``job.compression_threshold`` turns on MXNet's 2-bit compression of the gradients the
    worker pushes (``ps.push_pull.PushPullTrainer``); one process sends nothing, so
    without a kvstore it changes nothing.
    """
    import mxnet as mx
    from mxnet import autograd, gluon

    from tutorial.data import load_digits
    from tutorial.finite import check_finite
    from tutorial.parallel.workload import mlp

    net = mlp(hidden=job.hidden, seed=job.seed)
    b, total = job.batch_per_worker, num_workers * job.batch_per_worker
    if job.compression_threshold is not None and kvstore is not None:
        from tutorial.parallel.ps.push_pull import PushPullTrainer
        trainer = PushPullTrainer(net, kvstore, job.learning_rate, total,
                                  job.compression_threshold)
    else:
        trainer = gluon.Trainer(net.collect_params(), "sgd",
                                {"learning_rate": job.learning_rate}, kvstore=kvstore)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    losses, step_seconds, last = [], [], time.perf_counter()
    for step, (X, y) in zip(range(1, job.steps + 1), global_batches(job, num_workers)):
        Xr = mx.nd.array(X[rank * b:(rank + 1) * b])
        yr = mx.nd.array(y[rank * b:(rank + 1) * b])
        with autograd.record():
            loss = loss_fn(net(Xr), yr)
        loss.backward()
        trainer.step(total)                 # the TOTAL batch over all workers
        losses.append(check_finite(float(loss.mean().asscalar()), step,   # waits for it
                                   job.learning_rate))
        now = time.perf_counter()
        step_seconds.append(now - last)
        last = now
        log(f"step {step} loss {losses[-1]:.4f}")
        if worker_index is not None and worker_index == job.crash_worker \
                and step == job.crash_after_step:
            raise RuntimeError(f"deliberate crash of worker {worker_index} after step {step} "
                               f"(DigitsJob.crash_worker={job.crash_worker})")
    X, y = load_digits()
    accuracy = float((net(mx.nd.array(X)).argmax(axis=1).asnumpy() == y).mean())
    return {"rank": rank, "num_workers": num_workers, "losses": losses, "accuracy": accuracy,
            "step_seconds": step_seconds, "params": [p.data().asnumpy() for p in net.collect_params().values()]}
