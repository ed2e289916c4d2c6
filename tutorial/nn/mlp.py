"""The course's multilayer perceptron for 8x8 digits, with weights drawn by NumPy from a seed.

ReLU layers ``in_features -> hidden... -> classes`` with Xavier-uniform weights (MXNet's
``mx.init.Xavier()``: uniform in +-sqrt(6 / (fan_in + fan_out))). The weights come from
``np.random.default_rng(seed)``, not from MXNet's generator, so two nets built with the
same seed start bit-for-bit equal on any device and under any numeric configuration.
No BatchNorm and no Dropout: their state and masks would make two runs differ.

>>> net = mlp(hidden=(32,), seed=0)
>>> [p.shape for p in net.collect_params().values()]
[(32, 64), (32,), (10, 32), (10,)]
>>> bool((mlp((4,), seed=3)[0].weight.data() == mlp((4,), seed=3)[0].weight.data()).asnumpy().all())
True
>>> mlp((4,), bias=0.5)[0].bias.data().asnumpy()
array([0.5, 0.5, 0.5, 0.5], dtype=float32)
"""

import mxnet as mx
import numpy as np
from mxnet import gluon

from tutorial.validate import check_count, check_range

IN_FEATURES, CLASSES = 64, 10


def mlp(hidden=(128, 128), seed=0, in_features=IN_FEATURES, classes=CLASSES, ctx=None,
        bias=0.0):
    """ReLU MLP ``in_features -> hidden... -> classes``; Xavier-uniform weights from ``seed``.

    Every bias starts at ``bias`` (0 unless given).
    """
    if not isinstance(hidden, (tuple, list)):
        raise ValueError(f"hidden must be a list of layer widths such as (64,) or (128, 128), "
                         f"got {hidden!r}")
    sizes = [check_count("in_features", in_features),
             *[check_count(f"hidden[{i}]", h, what="units") for i, h in enumerate(hidden)],
             check_count("classes", classes)]
    bias = check_range("bias", bias)
    net = gluon.nn.Sequential()
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        last = i == len(sizes) - 2
        net.add(gluon.nn.Dense(n_out, in_units=n_in, activation=None if last else "relu"))
    net.initialize(ctx=ctx or mx.cpu())
    rng = np.random.default_rng(seed)
    for param in net.collect_params().values():
        if param.name.endswith("weight"):
            n_out, n_in = param.shape
            limit = np.sqrt(6.0 / (n_in + n_out))
            param.set_data(rng.uniform(-limit, limit, size=param.shape).astype(np.float32))
        else:
            param.set_data(np.full(param.shape, bias, dtype=np.float32))
    return net
