"""``dist_sync`` with MXNet's 2-bit gradient compression, and its twin in one process.

Each worker of the cluster quantises the gradient it pushes (threshold t, its own
residual: ``tutorial.parallel.compression``); the servers dequantise, sum the W pushes
and apply SGD; every worker pulls the new 32-bit weights. The twin does the same in this
process: W devices stand for the W workers (device r takes worker r's rows of every
global batch), the from-scratch ``TwoBitAggregation`` quantises and sums, and the
course's ``DataParallelTrainer`` updates. Both sides compute the same gradients and the
quantised values are multiples of t, so they agree up to float32 rounding.

Why not ``gluon.Trainer(..., compression_params=...)``: in MXNet 1.9.1 its step calls
``kv.pushpull``, which a distributed kvstore refuses with compression on ("Compression
not supported with PushPull"). :class:`PushPullTrainer` (in ``ps/push_pull.py``, which
the worker's ``digits_job`` imports without this module) does the Trainer's work by hand
with ``push`` and ``pull`` apart, which compression supports.

    job = DigitsJob(steps=20, compression_threshold=0.5)
    runs = train_on_cluster(job, kvstore="dist_sync", num_workers=2)
    twin = train_twin(job, num_workers=2)
    max_relative_difference(runs[0].params, twin)      # ~1e-7
"""

import mxnet as mx

from tutorial.parallel.compression import TwoBitAggregation
from tutorial.parallel.ps.digits_job import global_batches
from tutorial.parallel.ps.push_pull import PushPullTrainer  # noqa: F401 (named above)
from tutorial.parallel.trainer import DataParallelTrainer
from tutorial.parallel.workload import mlp


def train_twin(job, num_workers):
    """The final weights (NumPy arrays, in ``collect_params`` order) of the in-process twin."""
    if job.compression_threshold is None:
        raise ValueError("job.compression_threshold is None: give the DigitsJob a threshold "
                         "(e.g. compression_threshold=0.5) to compare 2-bit compression")
    net = mlp(hidden=job.hidden, seed=job.seed)
    devices = [mx.cpu(r) for r in range(num_workers)]
    trainer = DataParallelTrainer(net, devices, "sgd",
                                  TwoBitAggregation(job.compression_threshold),
                                  learning_rate=job.learning_rate)
    batches = global_batches(job, num_workers)
    for _ in range(job.steps):
        X, y = next(batches)
        trainer.step(X, y, timed=False)
    return [p.list_data()[0].asnumpy() for p in trainer.params]
