"""Transformations that precondition by running moments of the gradient.

Same protocol as :mod:`tutorial.optim.transforms` (``init``, ``update``). Each one
divides the direction by some per-coordinate scale built from past gradients: the sum of
squares (AdaGrad), a window of it (the deck's local AdaGrad), a leaky average (RMSProp),
both moments (Adam and friends).

The arithmetic runs in place: the state buffers are updated with ``*=`` and ``+=``, and
intermediate values go to one scratch array (``scratch_for``: the adapter's, reused).
``mx.nd.contrib.quadratic(x, a=c)`` is c·x² in one pass (MXNet's a·x² + b·x + c).

>>> import mxnet as mx
>>> from tutorial.optim.transforms import Step
>>> t = ScaleBySumOfSquares(eps=0.0)
>>> w = mx.nd.zeros(2); state = t.init(w)
>>> u = t.update(mx.nd.array([3.0, -4.0]), state, w, Step(lr=1, wd=0, t=1))
>>> u.asnumpy().tolist(), state[0].asnumpy().tolist()
([1.0, -1.0], [9.0, 16.0])
"""

from typing import NamedTuple

import mxnet as mx

from tutorial.optim.transforms import scaled, scratch_for, zeros_like


class ScaleBySumOfSquares(NamedTuple):
    """h <- h + u²; u <- u / sqrt(h + eps) (AdaGrad; eps is the deck's K)."""
    eps: float

    def init(self, weight):
        return (zeros_like(weight),)

    def update(self, u, state, weight, step):
        (history,) = state
        scratch = mx.nd.square(u, out=scratch_for(u, step))
        history += scratch
        mx.nd.sqrt(history + self.eps, out=scratch)      # scratch = sqrt(h + eps)
        u /= scratch
        return u


class ScaleByWindowSumOfSquares(NamedTuple):
    """Local AdaGrad: h = sum of u² over the last ``window`` steps; u <- u / sqrt(h + eps).

    Keeps the last ``window`` squared gradients in a ring (memory: window x the weight)
    and a running sum: add the newest, subtract the one that falls out of the window.
    While t <= window nothing falls out, so it equals AdaGrad exactly.
    """
    window: int
    eps: float

    def init(self, weight):
        ring = mx.nd.zeros((self.window,) + weight.shape, weight.context, dtype=weight.dtype)
        return (ring, zeros_like(weight))

    def update(self, u, state, weight, step):
        ring, history = state
        slot = ring[(step.t - 1) % self.window]      # a view: the oldest squared gradient
        if step.t > self.window:
            history -= slot
        mx.nd.square(u, out=slot)
        history += slot
        scratch = mx.nd.relu(history)                # relu: rounding never goes < 0
        scratch += self.eps
        u /= mx.nd.sqrt(scratch, out=scratch)
        return u


class ScaleByRms(NamedTuple):
    """n <- decay·n + (1 - decay)·u²; u <- u / sqrt(n + eps) (RMSProp, eps inside)."""
    decay: float
    eps: float

    def init(self, weight):
        return (zeros_like(weight),)

    def update(self, u, state, weight, step):
        (n,) = state
        # (1 - decay)·u²
        scratch = mx.nd.contrib.quadratic(u, a=1.0 - self.decay, out=scratch_for(u, step))
        n *= self.decay
        n += scratch
        mx.nd.sqrt(n + self.eps, out=scratch)                       # scratch = sqrt(n + eps)
        u /= scratch
        return u


class ScaleByCenteredRms(NamedTuple):
    """Graves' RMSProp: n, ḡ leaky averages of u², u; u <- u / sqrt(n - ḡ² + eps)."""
    decay: float
    eps: float

    def init(self, weight):
        return (zeros_like(weight), zeros_like(weight))

    def update(self, u, state, weight, step):
        n, mean = state
        # (1 - decay)·u²
        scratch = mx.nd.contrib.quadratic(u, a=1.0 - self.decay, out=scratch_for(u, step))
        n *= self.decay
        n += scratch
        mean *= self.decay
        mean += u * (1.0 - self.decay)
        mx.nd.contrib.quadratic(mean, a=-1.0, c=self.eps, out=scratch)   # eps - ḡ²
        scratch += n
        u /= mx.nd.sqrt(scratch, out=scratch)                       # sqrt(n - ḡ² + eps)
        return u


class AdaDeltaState(NamedTuple):
    acc_grad: mx.nd.NDArray     # a: leaky average of squared gradients
    acc_delta: mx.nd.NDArray    # b: leaky average of squared steps


class ScaleByAdaDelta(NamedTuple):
    """AdaDelta: a <- ρa + (1-ρ)u²; d = sqrt(b + eps)/sqrt(a + eps)·u; b <- ρb + (1-ρ)d²."""
    rho: float
    eps: float

    def init(self, weight):
        return AdaDeltaState(zeros_like(weight), zeros_like(weight))

    def update(self, u, state, weight, step):
        acc_grad, acc_delta = state     # by position: a loaded state is a plain tuple
        # (1 - rho)·u²
        scratch = mx.nd.contrib.quadratic(u, a=1.0 - self.rho, out=scratch_for(u, step))
        acc_grad *= self.rho
        acc_grad += scratch
        u *= mx.nd.sqrt(acc_delta + self.eps, out=scratch)
        u /= mx.nd.sqrt(acc_grad + self.eps, out=scratch)
        mx.nd.contrib.quadratic(u, a=1.0 - self.rho, out=scratch)    # (1 - rho)·d²
        acc_delta *= self.rho
        acc_delta += scratch
        return u


def update_moments(m, v, u, beta1, beta2, scratch):
    """m <- β1·m + (1 - β1)·u and v <- β2·v + (1 - β2)·u², in place (Adam's two moments).

    m is updated as u + β1·(m - u), the same average with no temporary; ``scratch`` ends
    up holding (1 - β2)·u².

    >>> m, v = mx.nd.zeros(1), mx.nd.zeros(1)
    >>> update_moments(m, v, mx.nd.array([2.0]), 0.9, 0.99, mx.nd.empty(1))
    >>> round(float(m.asscalar()), 6), round(float(v.asscalar()), 6)
    (0.2, 0.04)
    """
    m -= u
    m *= beta1
    m += u
    mx.nd.contrib.quadratic(u, a=1.0 - beta2, out=scratch)
    v *= beta2
    v += scratch


class AdamState(NamedTuple):
    m: mx.nd.NDArray    # leaky average of the gradient (first moment)
    v: mx.nd.NDArray    # leaky average of its square (second moment)


class AdamStepSize(NamedTuple):
    """t -> sqrt(1 - β2^t) / (1 - β1^t): Adam's bias correction as a factor of the step size.

    Kingma & Ba's Algorithm 1 in its efficient form (α_t = α·sqrt(1 - β2^t)/(1 - β1^t),
    MXNet's Adam); with ``beta2=None`` it is Adamax's 1 / (1 - β1^t). Give it to
    :class:`~tutorial.optim.transforms.ScaleByLr`, so correction and learning rate are one
    multiplication.

    >>> round(AdamStepSize(0.9, 0.999)(1), 6), AdamStepSize(0.5)(1)
    (0.316228, 2.0)
    """
    beta1: float
    beta2: float = None

    def __call__(self, t):
        second = 1.0 if self.beta2 is None else (1.0 - self.beta2 ** t) ** 0.5
        return second / (1.0 - self.beta1 ** t)


class ScaleByAdam(NamedTuple):
    """m, v leaky averages of u and u² (m <- β1·m + (1-β1)·u, v likewise with u²).

    ``bias_correction``:
      'none'    u = m / (sqrt(v) + eps)        (MXNet's Adam, with ScaleByLr(AdamStepSize))
      'moments' u = m̂ / (sqrt(v̂) + eps), m̂ = m / (1 - β1^t), v̂ = v / (1 - β2^t)  (LAMB)
    """
    beta1: float
    beta2: float
    eps: float
    bias_correction: str = "none"

    def init(self, weight):
        return AdamState(zeros_like(weight), zeros_like(weight))

    def update(self, u, state, weight, step):
        m, v = state                    # by position: a loaded state is a plain tuple
        scratch = scratch_for(u, step)
        update_moments(m, v, u, self.beta1, self.beta2, scratch)
        if self.bias_correction == "moments":
            mx.nd.sqrt(v / (1.0 - self.beta2 ** step.t), out=scratch)   # sqrt(v̂)
        else:
            mx.nd.sqrt(v, out=scratch)
        scratch += self.eps
        mx.nd.elemwise_div(m, scratch, out=u)
        if self.bias_correction == "moments":
            u /= 1.0 - self.beta1 ** step.t                             # m̂ = m / (1 - β1^t)
        return u


class ScaleByAdamax(NamedTuple):
    """m <- β1·m + (1-β1)·u; r <- max(β2·r, |u|); u <- m / (r + eps).

    The bias correction 1 / (1 - β1^t) is a step size: ScaleByLr(AdamStepSize(β1)).
    """
    beta1: float
    beta2: float
    eps: float = 0.0

    def init(self, weight):
        return (zeros_like(weight), zeros_like(weight))

    def update(self, u, state, weight, step):
        m, r = state
        m *= self.beta1
        m += u * (1.0 - self.beta1)
        r *= self.beta2
        mx.nd.broadcast_maximum(r, mx.nd.abs(u, out=u), out=r)
        denominator = r + self.eps if self.eps else r     # eps = 0: MXNet's op sequence
        return mx.nd.elemwise_div(m, denominator, out=u)


class NadamState(NamedTuple):
    m: mx.nd.NDArray    # leaky average of the gradient
    v: mx.nd.NDArray    # leaky average of its square
    product: list       # [P_t = μ_1···μ_t], one float in a list so the update can change it


class ScaleByNadam(NamedTuple):
    """Dozat's Nadam with the warming momentum schedule μ_t = β1(1 - ½·0.96^(t·decay)).

    Per parameter (MXNet keeps one product for all parameters: see ``nadam``):
      P_t = μ_1···μ_t;  m <- β1·m + (1-β1)·u;  v <- β2·v + (1-β2)·u²
      m̄ = (1 - μ_t)·u / (1 - P_t) + μ_{t+1}·m / (1 - P_t·μ_{t+1})
      u <- m̄ / (sqrt(v / (1 - β2^t)) + eps)
    The running product P travels with the parameter, in its state.
    """
    beta1: float
    beta2: float
    eps: float
    schedule_decay: float

    def init(self, weight):
        return NadamState(zeros_like(weight), zeros_like(weight), [1.0])

    def _momentum(self, t):
        return self.beta1 * (1.0 - 0.5 * 0.96 ** (t * self.schedule_decay))

    def update(self, u, state, weight, step):
        m, v, running = state           # by position: a loaded state is a plain tuple
        mu_t, mu_next = self._momentum(step.t), self._momentum(step.t + 1)
        running[0] *= mu_t
        product = running[0]
        scratch = scratch_for(u, step)
        update_moments(m, v, u, self.beta1, self.beta2, scratch)
        u *= (1.0 - mu_t) / (1.0 - product)                          # u becomes m̄
        u += scaled(m, mu_next / (1.0 - product * mu_next), out=scratch)
        mx.nd.sqrt(v / (1.0 - self.beta2 ** step.t), out=scratch)
        scratch += self.eps
        u /= scratch
        return u
