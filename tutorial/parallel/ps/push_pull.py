"""``trainer.step(total)`` for a distributed kvstore with 2-bit compressed gradient pushes.

In MXNet 1.9.1 ``gluon.Trainer(..., compression_params=...)`` calls ``kv.pushpull``,
which a distributed kvstore refuses with compression on ("Compression not supported with
PushPull"); :class:`PushPullTrainer` pushes and pulls apart, which compression supports.
The worker's job (``digits_job``) uses it; ``compressed`` compares it with its twin.
"""

import mxnet as mx

from tutorial.validate import check_range


class PushPullTrainer:
    """``trainer.step(total)`` for a distributed kvstore with 2-bit compressed pushes.

    The optimizer (SGD, ``rescale_grad = 1/total``) runs on the servers: MXNet pickles it
    there in ``set_optimizer``, so ``total`` is fixed when the trainer is made.
    """

    def __init__(self, net, kvstore, learning_rate, total, threshold):
        threshold = check_range("threshold", threshold, 0.0, low_open=True)
        self.kv = mx.kv.create(kvstore) if isinstance(kvstore, str) else kvstore
        self.total = total
        self.params = list(net.collect_params().values())
        self.kv.set_gradient_compression({"type": "2bit", "threshold": threshold})
        self.kv.set_optimizer(mx.optimizer.SGD(learning_rate=learning_rate,
                                               rescale_grad=1.0 / total))
        for i, p in enumerate(self.params):
            self.kv.init(i, p.data())          # rank 0's values; every worker has the same
        for i, p in enumerate(self.params):
            self.kv.pull(i, out=p.data())

    def step(self, total):
        if total != self.total:
            raise ValueError(f"this trainer steps over total={self.total} samples (the "
                             f"servers' rescale_grad), got {total}")
        for i, p in enumerate(self.params):
            self.kv.push(i, p.grad(), priority=-i)      # quantised on the way out
            self.kv.pull(i, out=p.data(), priority=-i)  # the servers' new 32-bit weights
