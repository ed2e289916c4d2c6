"""Dropout written from scratch: a fresh mask every step, inverted scaling, identity at prediction.

The deck's slide, for layer i with activations x_i and a keep/drop draw xi_ij per unit:

    without dropout:  y_i = W x_i                  x_{i+1} = sigma(y_i)
    with dropout:     z_ij = xi_ij x_ij            y_i = W z_i       x_{i+1} = sigma(y_i)

We draw xi_ij = 1 with probability 1 - p and 0 with probability p, and scale the kept
units by 1 / (1 - p) ("inverted dropout", as ``gluon.nn.Dropout`` does), so that
E[z_ij] = x_ij: at prediction time the block is the identity and needs no rescaling.
Gradients flow only through the kept units, each scaled by the same 1 / (1 - p).

Whether a mask is drawn is read from ``autograd.is_training()``: inside
``autograd.record()`` (training) a mask is drawn, outside it (prediction) nothing is.

>>> import mxnet as mx
>>> from mxnet import autograd
>>> drop = Dropout(0.5)
>>> x = mx.nd.ones((10, 10))
>>> drop(x).asnumpy().tolist()[0]              # prediction mode: the identity
[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
>>> mx.random.seed(0)
>>> with autograd.record():                    # training mode: kept units become 2
...     z = drop(x)
>>> sorted(set(z.asnumpy().ravel().tolist()))
[0.0, 2.0]
"""

from mxnet import autograd, gluon, nd


def check_rate(rate, what="rate"):
    """The drop probability as a float in [0, 1), or a ValueError that says what to pass."""
    try:
        rate = float(rate)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number in [0, 1), got {rate!r}") from None
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"{what} must lie in [0, 1): it is the probability of dropping a unit, "
                         f"got {rate}. Use 0.5 to drop half the units (the deck's choice); "
                         f"1 would drop everything.")
    return rate


def inverted_mask(shape, rate, ctx=None, dtype="float32"):
    """A fresh mask of 0s and 1/(1-rate)s: each entry is kept with probability 1 - rate.

    Its expectation is 1 everywhere, so ``x * inverted_mask(x.shape, p)`` keeps the mean of x.
    """
    rate = check_rate(rate)
    keep = nd.random.uniform(0, 1, shape=shape, ctx=ctx, dtype=dtype) >= rate
    return keep / (1.0 - rate)


class Dropout(gluon.Block):
    """Zero each input unit with probability ``rate`` while training; identity when predicting.

    A plain ``gluon.Block`` on purpose: whether to draw a mask is decided at every call
    from ``autograd.is_training()``, which a hybridized graph would freeze at tracing time.
    """

    def __init__(self, rate=0.5, **kwargs):
        super().__init__(**kwargs)
        self.rate = check_rate(rate)

    def forward(self, x):
        if not autograd.is_training() or self.rate == 0.0:
            return x
        return x * inverted_mask(x.shape, self.rate, ctx=x.context, dtype=x.dtype)

    def __repr__(self):
        return f"{self.__class__.__name__}(rate={self.rate})"
