"""FTRL-Proximal's step (McMahan et al. 2013): a closed-form solution, not a scaled gradient.

Same protocol as :mod:`tutorial.optim.transforms`; it returns the step from w to the
minimiser of the accumulated linearised losses plus L1 and L2 penalties.

>>> import mxnet as mx
>>> from tutorial.optim.transforms import Step
>>> w = mx.nd.zeros(2); t = FtrlProximal(lamda1=0.5, beta=1.0); state = t.init(w)
>>> t.update(mx.nd.array([2.0, 0.25]), state, w, Step(lr=1.0, wd=0.0, t=1)).asnumpy().tolist()
[-0.5, 0.0]
"""

from typing import NamedTuple

import mxnet as mx

from tutorial.optim.transforms import sign, zeros_like


class FtrlProximal(NamedTuple):
    """FTRL-Proximal (McMahan et al.): returns the step from w to its closed-form new value.

      z <- z + u - (sqrt(n + u²) - sqrt(n))·w / lr;   n <- n + u²
      w_new = (sign(z)·λ1 - z) / ((β + sqrt(n)) / lr + wd)  where |z| > λ1, else 0
    """
    lamda1: float
    beta: float

    def init(self, weight):
        return (zeros_like(weight), zeros_like(weight))

    def update(self, u, state, weight, step):
        z, n = state
        previous_root = mx.nd.sqrt(n)
        n += mx.nd.square(u)
        root = mx.nd.sqrt(n)                      # sqrt(n + u²), used twice below
        z += u - (root - previous_root) * weight / step.lr
        new = ((sign(z) * self.lamda1 - z)
               / ((root + self.beta) / step.lr + step.wd)
               * (mx.nd.abs(z) > self.lamda1))
        return new - weight
