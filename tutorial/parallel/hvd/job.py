"""The digits job of the parameter-server cluster, trained by Horovod's ring instead.

Same :class:`~tutorial.parallel.ps.digits_job.DigitsJob`, same global batches of
``W * b`` samples, and rank ``r`` takes rows ``r*b : (r+1)*b``, so the results compare
with ``dist_sync`` and with one process. Two lines make it Horovod's:

- ``hvd.broadcast_parameters``: every rank starts from rank 0's weights. To show that it
  matters, rank r first builds its net from seed ``job.seed + r`` (different weights);
  after the broadcast all equal rank 0's, which are one process's.
- ``hvd.DistributedTrainer``: ``step`` first allreduces every gradient over the ring and
  AVERAGES it (divides the sum by W), then updates. So each rank calls ``step(b)`` with
  its OWN batch: sum over ranks / (W * b), exactly one process's step on ``W * b``.
  (With ``dist_sync`` the server only sums, and each worker calls ``step(W * b)``.)
"""

import time


def train(job, log=print):
    """Train ``job`` as this Horovod rank (``hvd.init()`` done by the caller's process)."""
    import horovod.mxnet as hvd
    import mxnet as mx
    from mxnet import autograd, gluon

    from tutorial.data import load_digits
    from tutorial.finite import check_finite
    from tutorial.parallel.ps.digits_job import global_batches
    from tutorial.parallel.workload import mlp

    hvd.init()
    rank, size = hvd.rank(), hvd.size()
    net = mlp(hidden=job.hidden, seed=job.seed + rank)        # different on every rank ...
    params = net.collect_params()
    hvd.broadcast_parameters(params, root_rank=0)             # ... until rank 0's are sent
    trainer = hvd.DistributedTrainer(params, "sgd", {"learning_rate": job.learning_rate})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    b = job.batch_per_worker
    losses, step_seconds, last = [], [], time.perf_counter()
    for step, (X, y) in zip(range(1, job.steps + 1), global_batches(job, size)):
        Xr, yr = mx.nd.array(X[rank * b:(rank + 1) * b]), mx.nd.array(y[rank * b:(rank + 1) * b])
        with autograd.record():
            loss = loss_fn(net(Xr), yr)
        loss.backward()
        trainer.step(b)                        # allreduce-average, then this rank's b samples
        losses.append(check_finite(float(loss.mean().asscalar()), step,   # waits for it
                                   job.learning_rate))
        now = time.perf_counter()
        step_seconds.append(now - last)
        last = now
        log(f"step {step} loss {losses[-1]:.4f}")
        if rank == job.crash_worker and step == job.crash_after_step:
            raise RuntimeError(f"deliberate crash of rank {rank} after step {step} "
                               f"(DigitsJob.crash_worker={job.crash_worker})")
    X, y = load_digits()
    accuracy = float((net(mx.nd.array(X)).argmax(axis=1).asnumpy() == y).mean())
    return {"rank": rank, "num_workers": size, "losses": losses, "accuracy": accuracy,
            "step_seconds": step_seconds,
            "params": [p.data().asnumpy() for p in params.values()]}
