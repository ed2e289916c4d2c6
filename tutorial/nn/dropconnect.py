"""DropConnect: a Dense layer that drops weights instead of activations.

Dropout zeroes units of x (all of a unit's outgoing weights at once); DropConnect
(Wan et al., 2013, the deck's "zero-out weights") zeroes individual entries of W:

    dropout:      y = W (xi * x) + b          xi  ~ one draw per input unit
    DropConnect:  y = (M * W) x + b           M   ~ one draw per weight

Conventions here, stated because papers differ:

- one mask M per step (per minibatch), drawn fresh at every training call, as the
  deck says ("draw a new mask for every step"); Wan et al. draw one per example;
- inverted scaling: kept weights are divided by (1 - p), so E[M * W / (1 - p)] = W and
  at prediction time the layer uses the expected weights W (Wan et al. instead
  moment-match a Gaussian at inference; using the mean is the common simplification);
- the bias is never dropped.

>>> import mxnet as mx
>>> from mxnet import autograd
>>> layer = DropConnectDense(3, in_units=4, rate=0.5)
>>> layer.initialize(mx.init.One())
>>> layer(mx.nd.ones((1, 4))).asnumpy().tolist()      # prediction: W = ones, bias starts at 0
[[4.0, 4.0, 4.0]]
"""

from mxnet import autograd, gluon, nd

from .dropout import check_rate, inverted_mask


class DropConnectDense(gluon.Block):
    """``y = activation((M * W / (1 - rate)) x + b)`` while training, ``activation(W x + b)`` otherwise.

    Shapes follow ``gluon.nn.Dense``: weight (units, in_units), bias (units,), inputs are
    flattened to (batch, in_units). ``in_units`` must be given (no deferred shapes).
    """

    def __init__(self, units, in_units, rate=0.5, activation=None, **kwargs):
        super().__init__(**kwargs)
        for name, value in (("units", units), ("in_units", in_units)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"DropConnectDense needs a whole number {name} >= 1, got "
                                 f"{value!r} (in_units is the number of input features)")
        self.units, self.in_units = units, in_units
        self.rate = check_rate(rate)
        self.activation = activation
        with self.name_scope():
            self.weight = self.params.get("weight", shape=(units, in_units))
            self.bias = self.params.get("bias", shape=(units,), init="zeros")

    def forward(self, x):
        x = x.reshape((0, -1))                                   # (batch, in_units)
        if x.shape[1] != self.in_units:
            raise ValueError(f"{self.name} expects inputs with {self.in_units} features "
                             f"(in_units), got shape {x.shape}; build it with "
                             f"in_units={x.shape[1]} or fix the layer before it")
        weight = self.weight.data(x.context)                     # (units, in_units)
        if autograd.is_training() and self.rate > 0.0:
            weight = weight * inverted_mask(weight.shape, self.rate, x.context, weight.dtype)
        y = nd.FullyConnected(x, weight, self.bias.data(x.context), num_hidden=self.units)
        return y if self.activation is None else nd.Activation(y, act_type=self.activation)

    def __repr__(self):
        act = f", activation={self.activation!r}" if self.activation else ""
        return (f"{self.__class__.__name__}({self.in_units} -> {self.units}, "
                f"rate={self.rate}{act})")
