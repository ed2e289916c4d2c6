"""BatchNorm's running mean and variance under data parallelism: one copy per device.

A BatchNorm layer keeps two parameters that no gradient touches (``grad_req='null'``,
MXNet's "auxiliary states"): the running mean and variance it uses when predicting. In
training, each device's layer updates its own copy from the shard it saw,

    running <- momentum * running + (1 - momentum) * statistic of this device's shard,

so after one step the K copies differ (with ``gluon.nn.BatchNorm``; SyncBatchNorm
updates every copy with the statistics of the whole batch, so they stay equal).

What the two trainers do with them:

- ``DataParallelTrainer`` (from scratch) copies them to every device with the weights,
  and after every step AVERAGES each one over the devices and writes the average back to
  every copy (:func:`average_over_devices`). The copies stay equal, so predicting on any
  device gives the same answer. The average of K shard means is the mean of the whole
  batch (equal shards); the average of K shard variances misses the spread between the
  shard means, so it is a little smaller than the whole batch's variance.
- ``gluon.Trainer`` copies device 0's to every device once, when its first ``step``
  initialises the kvstore (after that step's forward pass), and then leaves them alone:
  each device keeps the statistics of its own shards, and a net evaluated on
  ``devices[0]`` uses device 0's (MXNet's behaviour; :func:`spread_over_devices`
  measures how far the copies drift apart).

>>> import mxnet as mx
>>> p = mx.gluon.Parameter("running_mean", shape=(2,), grad_req="null")
>>> p.initialize(mx.init.Zero(), ctx=[mx.cpu(0), mx.cpu(1)])
>>> p.list_data()[1][:] = mx.nd.array([2.0, 4.0], ctx=mx.cpu(1))
>>> spread_over_devices([p])
4.0
>>> average_over_devices([p])
>>> [c.asnumpy().tolist() for c in p.list_data()]
[[1.0, 2.0], [1.0, 2.0]]
"""

import mxnet as mx


def running_stats(net):
    """The parameters of ``net`` that no gradient updates (BatchNorm's running statistics)."""
    return [p for p in net.collect_params().values() if p.grad_req == "null"]


def average_over_devices(params):
    """Replace every copy of each parameter by the mean of its copies (in place)."""
    for param in params:
        copies = param.list_data()
        if len(copies) < 2:
            continue
        home = copies[0].context
        mean = mx.nd.add_n(*[c.as_in_context(home) for c in copies]) / len(copies)
        for copy in copies:
            mean.copyto(copy)


def spread_over_devices(params):
    """The largest |copy - copy on the first device| over all parameters (0.0: all equal)."""
    spread = 0.0
    for param in params:
        first, *others = param.list_data()
        for copy in others:
            spread = max(spread, float((copy.as_in_context(first.context) - first)
                                       .abs().max().asscalar()))
    return spread
