"""The small pieces every optimizer here is built from (after optax's transformations).

A transformation is a tiny immutable object with two methods:

- ``init(weight) -> state``: the buffers it keeps for one parameter (a tuple, maybe empty);
- ``update(u, state, weight, step) -> u``: turn the incoming update direction ``u`` into
  the next one, updating ``state`` in place.

An optimizer is a chain of them; :mod:`tutorial.optim.adapter` starts the chain with
``u = rescale_grad * grad`` (a private copy, so a transformation may change ``u`` in
place) and ends it with ``weight += u``. ``step`` is a :class:`Step`: the hyperparameters
MXNet hands out for this parameter at this update (lr, wd, counter t starting at 1, ...).

Everything is NDArray arithmetic, so it runs on whatever context the weight lives on.
The arithmetic is in place where NDArray allows it (``u *= s``, ``out=u``): on ~12M
parameters every temporary array is one more pass over memory, and a fresh one costs an
allocation too (benchmarks/optimizers.py measures what that buys).

>>> import mxnet as mx
>>> w, g = mx.nd.array([1.0, -2.0]), mx.nd.array([4.0, -0.5])
>>> step = Step(lr=0.1, wd=0.0, t=1, clip_gradient=1.0)
>>> u = Clip().update(g.copy(), (), w, step)
>>> ScaleByLr().update(u, (), w, step).asnumpy().tolist()
[-0.10000000149011612, 0.05000000074505806]
"""

from typing import NamedTuple, Optional

import mxnet as mx


class Step(NamedTuple):
    """What one update of one parameter knows besides the gradient."""
    lr: float                      # learning rate for this parameter (scheduler x lr_mult)
    wd: float                      # weight decay for this parameter (wd x wd_mult)
    t: int                         # how many times this parameter was updated, 1 at the first
    clip_gradient: Optional[float] = None   # bound for element-wise clipping, None = off
    rescale_grad: float = 1.0      # factor already applied to u (LARS needs it for norms)
    raw_grad: object = None        # the gradient as the Trainer handed it in, untouched
    name: str = ""                 # parameter name when known (LARS skips bias/gamma/beta)
    scratch: object = None         # an array like the weight to compute in (see scratch_for)


def scratch_for(u, step):
    """An array shaped like u to hold intermediate values: the adapter's, kept between
    updates (``step.scratch``), or a new one. Use it within one update, never return it."""
    if step.scratch is not None:
        return step.scratch
    return mx.nd.empty(u.shape, u.context, dtype=u.dtype)


def scaled(x, factor, out):
    """out <- factor·x in one pass: what ``x * factor`` computes, written into ``out``.

    (``x * factor`` would allocate a fresh array on every update; ``out`` is reused.)

    >>> scaled(mx.nd.array([2.0, float("inf")]), 0.5, out=mx.nd.empty(2)).asnumpy().tolist()
    [1.0, inf]
    """
    return mx.nd._internal._mul_scalar(x, scalar=float(factor), out=out)


def zeros_like(weight):
    """Zeros with the weight's shape, context and dtype (a fresh state buffer)."""
    return mx.nd.zeros(weight.shape, weight.context, dtype=weight.dtype)


class Clip(NamedTuple):
    """u <- clip(u, -c, c) with c = step.clip_gradient (no-op when it is None or 0)."""
    def init(self, weight):
        return ()

    def update(self, u, state, weight, step):
        c = step.clip_gradient
        return mx.nd.clip(u, -c, c, out=u) if c else u


class AddDecayedWeights(NamedTuple):
    """u <- u + wd * w: L2 weight decay, the gradient of (wd/2)·||w||²."""
    def init(self, weight):
        return ()

    def update(self, u, state, weight, step):
        if step.wd:
            u += scaled(weight, step.wd, out=scratch_for(u, step))
        return u


class AddDecoupledDecay(NamedTuple):
    """u <- u - lr * rate * w, after the learning rate is applied (Signum's ``wd_lh``)."""
    rate: float

    def init(self, weight):
        return ()

    def update(self, u, state, weight, step):
        if self.rate:
            u -= scaled(weight, step.lr * self.rate, out=scratch_for(u, step))
        return u


class ScaleByLr(NamedTuple):
    """u <- -factor * lr * u: from a direction to a step (the sign makes it descent).

    ``factor`` is a number or a function of the update count t (Adam's bias correction
    as a step size, :class:`tutorial.optim.moments.AdamStepSize`): either way the whole
    scaling is one multiplication of u.
    """
    factor: object = 1.0

    def init(self, weight):
        return ()

    def update(self, u, state, weight, step):
        factor = self.factor(step.t) if callable(self.factor) else self.factor
        u *= -step.lr * factor
        return u


class TraceState(NamedTuple):
    m: mx.nd.NDArray      # the momentum buffer (MXNet's convention: lr folded in)
    last_lr: list         # [lr of this parameter's previous update], None before the first


class Trace(NamedTuple):
    """m <- decay·m + u; returns m itself (heavy-ball momentum, put it last in a chain).

    With ``lr_corrected`` the decay is multiplied by lr_t / lr_{t-1}, the ratio of this
    update's learning rate to the previous one (Goyal et al.'s momentum correction, so a
    changed lr does not resurface through old momentum). The state remembers lr_{t-1}.
    Read the state by position (``m, last_lr = state``): MXNet's Updater turns a loaded
    state back into a plain tuple.

    >>> w = mx.nd.zeros(1); trace = Trace(0.5, lr_corrected=True); state = trace.init(w)
    >>> for lr in (1.0, 1.0, 0.1):     # the lr drops tenfold at the third update
    ...     m = trace.update(mx.nd.ones(1) * -lr, state, w, Step(lr=lr, wd=0.0, t=1))
    >>> round(float(m.asscalar()), 6)          # -(0.1 + 0.5 * 0.1 * 1.5): old momentum scaled down too
    -0.175
    """
    decay: float
    lr_corrected: bool = False

    def init(self, weight):
        return TraceState(zeros_like(weight), [None])

    def update(self, u, state, weight, step):
        m, last_lr = state
        ratio = 1.0
        if self.lr_corrected:
            ratio = step.lr / last_lr[0] if last_lr[0] else 1.0
            last_lr[0] = step.lr
        m *= self.decay * ratio
        m += u
        return m


class Nesterov(NamedTuple):
    """m <- decay·m + u; u <- u + decay·m (Nesterov momentum in look-ahead form)."""
    decay: float

    def init(self, weight):
        return (zeros_like(weight),)

    def update(self, u, state, weight, step):
        (m,) = state
        m *= self.decay
        m += u
        u += scaled(m, self.decay, out=scratch_for(u, step))
        return u


class Ema(NamedTuple):
    """m <- decay·m + (1 - decay)·u; returns m itself (put only read-only pieces after it).

    Computed as m <- u + decay·(m - u), the same average with no temporary array.
    """
    decay: float

    def init(self, weight):
        return (zeros_like(weight),)

    def update(self, u, state, weight, step):
        (m,) = state
        m -= u
        m *= self.decay
        m += u
        return m


def sign(x):
    """sign(x) as (x > 0) - (x < 0): ``mx.nd.sign`` to the bit (NaN gives 0 in both).

    Comparisons need no branch, while ``mx.nd.sign`` branches per element and mispredicts
    on gradients, whose signs are random (several times slower on ~12M parameters).

    >>> sign(mx.nd.array([-2.0, 0.0, 3.0])).asnumpy().tolist()
    [-1.0, 0.0, 1.0]
    """
    return (x > 0) - (x < 0)


class Sign(NamedTuple):
    """u <- sign(u) (a new array: safe after :class:`Ema`)."""
    def init(self, weight):
        return ()

    def update(self, u, state, weight, step):
        return sign(u)


class AddNoise(NamedTuple):
    """u <- u + N(0, lr) drawn with MXNet's seeded generator (Langevin dynamics)."""
    def init(self, weight):
        return ()

    def update(self, u, state, weight, step):
        u += mx.nd.random.normal(0, step.lr ** 0.5, shape=weight.shape,
                                 dtype=weight.dtype, ctx=weight.context)
        return u


class DelayCompensation(NamedTuple):
    """u <- u + lamda·u⊙u⊙(w - w_prev); w_prev <- w (DC-ASGD's Taylor correction)."""
    lamda: float

    def init(self, weight):
        return (weight.copy(),)

    def update(self, u, state, weight, step):
        (previous,) = state
        u += u * u * (weight - previous) * self.lamda
        previous[:] = weight
        return u
