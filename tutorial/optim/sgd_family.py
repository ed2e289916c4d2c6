"""SGD and its first-order relatives: momentum, Nesterov, Signum, DC-ASGD, SGLD.

Shared conventions (all pinned against MXNet 1.9.1 in tests/optim/test_optim_vs_mxnet.py):
``t`` counts this parameter's updates from 1; ``g = rescale_grad * grad``;
``clip(x) = clip(x, -clip_gradient, clip_gradient)`` (identity when it is None); the
learning rate sits *inside* the momentum buffer (MXNet's convention; PyTorch keeps it
outside, which only differs when the learning rate changes).
"""

from tutorial.optim.adapter import ChainOptimizer
from tutorial.optim.options import check_settings
from tutorial.validate import check_range
from tutorial.optim.transforms import (AddDecayedWeights, AddDecoupledDecay, AddNoise, Clip,
                                       DelayCompensation, Ema, Nesterov, ScaleByLr, Sign,
                                       Trace)
import mxnet as mx


@mx.optimizer.register
class TutorialSGD(ChainOptimizer):
    """Stochastic gradient descent, with heavy-ball momentum when ``momentum > 0``::

        u = clip(g) + wd * w
        momentum == 0:  w = w - lr * u
        momentum  > 0:  m = momentum * m - lr * u      (m starts at 0)
                        w = w + m

    The deck writes w ← (1 − 2ηλ)w − η·g_B for the penalty λ·||w||²: that is this update
    with ``wd = 2λ`` (MXNet's ``wd`` multiplies w in the gradient).

    ``momentum_correction=True`` (Goyal et al. 2017, §2.1) scales the buffer by
    lr_t / lr_{t-1} when a schedule changes the rate, so the step equals the form with
    lr outside the buffer (v = momentum·v + u, w = w − lr_t·v) at every step; MXNet's own
    sgd has no such option, so the default is off. ``lazy_update`` as in MXNet: with a
    row_sparse gradient only its rows move (see ``tutorial.optim.sparse``).

    >>> import mxnet as mx
    >>> opt, w, g = TutorialSGD(learning_rate=0.1, wd=0.2), mx.nd.array([1.0]), mx.nd.array([0.5])
    >>> opt.update(0, w, g, opt.create_state(0, w))
    >>> round(float(w.asscalar()), 6)      # (1 - 0.1*0.2)*1 - 0.1*0.5
    0.93
    """

    def __init__(self, momentum=0.0, momentum_correction=False, lazy_update=True, **kwargs):
        check_settings(momentum=momentum)
        super().__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = bool(momentum_correction)
        self.lazy_update = bool(lazy_update)

    def chain(self):
        steps = (Clip(), AddDecayedWeights(), ScaleByLr())
        if not self.momentum:
            return steps
        return steps + (Trace(self.momentum, lr_corrected=self.momentum_correction),)


@mx.optimizer.register
class TutorialMomentum(TutorialSGD):
    """Heavy-ball momentum: :class:`TutorialSGD` with ``momentum`` (default 0.9) required.

    This is the deck's "SGD with momentum and clipping" with s = -m::

        s = momentum * s + lr * clip(g) + lr * wd * w
        w = w - s
    """

    def __init__(self, momentum=0.9, momentum_correction=False, **kwargs):
        check_range("momentum", momentum, 0.0, 1.0, low_open=True, high_open=True)
        super().__init__(momentum=momentum, momentum_correction=momentum_correction, **kwargs)


@mx.optimizer.register
class TutorialNAG(ChainOptimizer):
    """Nesterov's accelerated gradient in MXNet's look-ahead form::

        u = clip(g) + wd * w
        m = momentum * m - lr * u       (m starts at 0, lr inside m as in MXNet)
        w = w + momentum * m - lr * u

    It is the deck's m ← μm + ε·∇f(w − μm), w ← w − m rewritten at the look-ahead point.
    MXNet 1.9.1's ``nag_mom_update`` with ``out=weight`` (as its NAG calls it) reads the
    already *updated* weight for the weight-decay term of m: a bug that only shows with
    wd > 0; there ours is checked against a NumPy reference.
    """

    def __init__(self, momentum=0.0, **kwargs):
        check_settings(momentum=momentum)
        super().__init__(**kwargs)
        self.momentum = momentum

    def chain(self):
        return (Clip(), AddDecayedWeights(), ScaleByLr(), Nesterov(self.momentum))


@mx.optimizer.register
class TutorialSignum(ChainOptimizer):
    """Signum (Bernstein et al. 2018): step by the sign of a momentum average::

        m = momentum * m + (1 - momentum) * (clip(g) + wd * w)
        w = w - lr * sign(m) - lr * wd_lh * w

    With ``momentum = 0`` this is sign(clip(g) + wd·w); MXNet's ``signsgd_update`` instead
    decays the weight outside the sign.
    """
    default_learning_rate = 0.01

    def __init__(self, momentum=0.9, wd_lh=0.0, **kwargs):
        check_settings(momentum=momentum, wd_lh=wd_lh)
        super().__init__(**kwargs)
        self.momentum, self.wd_lh = momentum, wd_lh

    def chain(self):
        return (Clip(), AddDecayedWeights(), Ema(self.momentum), Sign(), ScaleByLr(),
                AddDecoupledDecay(self.wd_lh))


@mx.optimizer.register
class TutorialDCASGD(ChainOptimizer):
    """Delay-compensated async SGD (Zheng et al. 2017), w_prev = w before the last update::

        u = clip(g) + lamda * clip(g)² * (w - w_prev) + wd * w
        w_prev = w
        m = momentum * m - lr * u      (momentum == 0: the step is -lr * u)
        w = w + m

    MXNet 1.9.1's DCASGD crashes for ``momentum > 0`` (``if mom:`` on an NDArray);
    ours is checked against a NumPy reference there.
    """

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        check_settings(momentum=momentum, lamda=lamda)
        super().__init__(**kwargs)
        self.momentum, self.lamda = momentum, lamda

    def chain(self):
        steps = (Clip(), DelayCompensation(self.lamda), AddDecayedWeights(), ScaleByLr())
        return steps + (Trace(self.momentum),) if self.momentum else steps


@mx.optimizer.register
class TutorialSGLD(ChainOptimizer):
    """Stochastic gradient Langevin dynamics (Welling & Teh 2011)::

        w = w - lr/2 * (clip(g) + wd * w) + N(0, lr)     (noise std sqrt(lr))

    The noise comes from MXNet's generator: seed it with ``mx.random.seed``.
    """

    def chain(self):
        return (Clip(), AddDecayedWeights(), ScaleByLr(0.5), AddNoise())
