"""The course's multilayer perceptron for 8x8 digits, its Xavier weights drawn from a seed.

ReLU layers ``in_features -> hidden... -> classes`` with Xavier-uniform weights (MXNet's
``mx.init.Xavier()``: uniform in +-sqrt(6 / (fan_in + fan_out))). Which generator draws
them is the ``generator`` argument:

- ``"numpy"`` (the default): ``np.random.default_rng(seed)``, so two nets built with the
  same seed start bit-for-bit equal on any device (the data-parallel notebooks need that);
- ``"mxnet"``: ``mx.random.seed(seed)``, then ``net.initialize(mx.init.Xavier())``, what
  a plain Gluon program does (the optimizer notebooks' results were measured with these
  weights). It reseeds MXNet's global generator, exactly as ``mx.random.seed`` would.

Either way the weights do not depend on oneDNN, OpenBLAS or the thread count. No
BatchNorm and no Dropout: their state and masks would make two runs differ.

>>> import mxnet as mx
>>> net = mlp(hidden=(32,), seed=0)
>>> [p.shape for p in net.collect_params().values()]
[(32, 64), (32,), (10, 32), (10,)]
>>> bool((mlp((4,), seed=3)[0].weight.data() == mlp((4,), seed=3)[0].weight.data()).asnumpy().all())
True
>>> mlp((4,), bias=0.5)[0].bias.data().asnumpy()
array([0.5, 0.5, 0.5, 0.5], dtype=float32)
>>> mx.random.seed(0)
>>> plain = mx.gluon.nn.Dense(4, in_units=64)
>>> plain.initialize(mx.init.Xavier())
>>> bool((mlp((4,), generator="mxnet")[0].weight.data() == plain.weight.data()).asnumpy().all())
True
"""

import mxnet as mx
import numpy as np
from mxnet import gluon

from tutorial.validate import check_count, check_range

IN_FEATURES, CLASSES = 64, 10
GENERATORS = ("numpy", "mxnet")
MAX_PARAMETERS = 10 ** 8        # 400 MB of float32 weights, before gradients and state


def mlp(hidden=(128, 128), seed=0, in_features=IN_FEATURES, classes=CLASSES, ctx=None,
        bias=0.0, generator="numpy"):
    """ReLU MLP ``in_features -> hidden... -> classes``; Xavier-uniform weights from ``seed``.

    ``generator`` ("numpy" or "mxnet") draws the weights; every bias starts at ``bias``.
    A net of more than ``MAX_PARAMETERS`` numbers is refused before anything is allocated.
    """
    if not isinstance(hidden, (tuple, list)):
        raise ValueError(f"hidden must be a list of layer widths such as (64,) or (128, 128), "
                         f"got {hidden!r}")
    sizes = [check_count("in_features", in_features),
             *[check_count(f"hidden[{i}]", h, what="units") for i, h in enumerate(hidden)],
             check_count("classes", classes)]
    parameters = sum(n_in * n_out + n_out for n_in, n_out in zip(sizes[:-1], sizes[1:]))
    if parameters > MAX_PARAMETERS:
        raise ValueError(f"mlp(hidden={tuple(hidden)}) would have {parameters:,} parameters; "
                         f"this course's limit is {MAX_PARAMETERS:,} (400 MB of float32 "
                         f"weights): choose fewer or narrower hidden layers")
    bias = check_range("bias", bias)
    if generator not in GENERATORS:
        raise ValueError(f"generator={generator!r}: use 'numpy' (the same weights on every "
                         f"device) or 'mxnet' (mx.random.seed, then mx.init.Xavier())")
    net = gluon.nn.Sequential()
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        last = i == len(sizes) - 2
        net.add(gluon.nn.Dense(n_out, in_units=n_in, activation=None if last else "relu"))
    if generator == "mxnet":
        mx.random.seed(seed)
        net.initialize(mx.init.Xavier(), ctx=ctx or mx.cpu())
    else:
        net.initialize(ctx=ctx or mx.cpu())
    rng = np.random.default_rng(seed)
    for param in net.collect_params().values():
        if not param.name.endswith("weight"):
            param.set_data(np.full(param.shape, bias, dtype=np.float32))
        elif generator == "numpy":
            n_out, n_in = param.shape
            limit = np.sqrt(6.0 / (n_in + n_out))
            param.set_data(rng.uniform(-limit, limit, size=param.shape).astype(np.float32))
    return net
