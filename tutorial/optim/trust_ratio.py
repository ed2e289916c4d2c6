"""Layer-wise trust ratios: scale a whole layer's step by a ratio of norms (LARS, LAMB).

The deck's large-batch slide: λ_l = ||w_l|| / (||g_l|| + β||w_l||). Both transforms keep
the norms on the device (no ``asnumpy`` per layer), so they cost two reductions.

>>> import mxnet as mx
>>> from tutorial.optim.transforms import Step
>>> w = mx.nd.array([3.0, 4.0])                      # ||w|| = 5
>>> g = mx.nd.array([0.0, 1.0])                      # ||g|| = 1
>>> step = Step(lr=1, wd=0.0, t=1, raw_grad=g, name="dense0_weight")
>>> LarsTrustRatio(eta=0.1, eps=0.0).update(g.copy(), (), w, step).asnumpy().tolist()
[0.0, 0.5]
"""

from typing import NamedTuple, Optional

import mxnet as mx
import numpy as np

# Biases and normalisation scales and shifts: You et al. leave them out of LARS, and large-batch
# recipes out of weight decay (tutorial.optim.scaling.no_decay_on_biases reads this list too).
BIAS_AND_NORM_SUFFIXES = ("bias", "gamma", "beta")


def _norm(array):
    """||array|| as a (1,) array, sqrt(x·x) by BLAS's dot (many times faster than mx.nd.norm)."""
    if np.dtype(array.dtype) != np.float32:
        array = array.astype("float32")          # accumulate half precision in float32
    flat = array.reshape((-1,))
    return mx.nd.sqrt(mx.nd.dot(flat, flat)).reshape((1,))


def _scale(u, ratio):
    """u <- ratio · u, in place."""
    return mx.nd.broadcast_mul(u, ratio.reshape((1,) * u.ndim).astype(u.dtype), out=u)


def _ratio_or_one(numerator, denominator, w_norm, other_norm):
    """numerator / denominator where both norms are > 0, else 1 (as MXNet does)."""
    ok = (w_norm > 0) * (other_norm > 0)
    return mx.nd.where(ok, numerator / mx.nd.where(ok, denominator, mx.nd.ones_like(ok)),
                       mx.nd.ones_like(ok))


class LarsTrustRatio(NamedTuple):
    """u <- u · eta·||w|| / (||g||·rescale_grad + wd·||w|| + eps), g the raw gradient.

    Layers whose name ends in bias, gamma or beta are left out (You et al. exclude them):
    their ratio is ``excluded_ratio``, 1 unless given.
    """
    eta: float
    eps: float
    excluded_ratio: float = 1.0

    def init(self, weight):
        return ()

    def update(self, u, state, weight, step):
        if step.name.endswith(BIAS_AND_NORM_SUFFIXES):
            if self.excluded_ratio != 1.0:
                u *= self.excluded_ratio
            return u
        w_norm = _norm(weight)
        g_norm = _norm(step.raw_grad) * step.rescale_grad
        ratio = _ratio_or_one(w_norm * self.eta, g_norm + w_norm * step.wd + self.eps,
                              w_norm, g_norm)
        return _scale(u, ratio)


class LambTrustRatio(NamedTuple):
    """u <- u · r1 / r2 with r1 = clip(||w||, lower, upper), r2 = ||u|| (1 when either is 0).

    With ``skip_bias_and_norm`` layers named ...bias, ...gamma or ...beta keep ratio 1.
    """
    lower_bound: Optional[float] = None
    upper_bound: Optional[float] = None
    skip_bias_and_norm: bool = False

    def init(self, weight):
        return ()

    def update(self, u, state, weight, step):
        if self.skip_bias_and_norm and step.name.endswith(BIAS_AND_NORM_SUFFIXES):
            return u
        r1 = _norm(weight)
        if self.lower_bound:
            r1 = mx.nd.maximum(r1, self.lower_bound)
        if self.upper_bound:
            r1 = mx.nd.minimum(r1, self.upper_bound)
        r2 = _norm(u)
        return _scale(u, _ratio_or_one(r1, r2, r1, r2))
