"""Optimizers with a per-coordinate step size: AdaGrad (global and local), RMSProp,
AdaDelta, Adam, Adamax, Nadam, FTRL.

Conventions as in :mod:`tutorial.optim.sgd_family`: t counts from 1, g = rescale_grad·grad,
clip(x) = clip(x, -clip_gradient, clip_gradient). Where weight decay sits relative to
clipping follows MXNet 1.9.1 for each algorithm (it differs between them).
"""

import mxnet as mx

from tutorial.optim.adapter import ChainOptimizer
from tutorial.optim.options import check_settings
from tutorial.validate import check_range
from tutorial.optim.moments import (AdamStepSize, ScaleByAdaDelta, ScaleByAdam, ScaleByAdamax,
                                    ScaleByCenteredRms, ScaleByNadam, ScaleByRms,
                                    ScaleBySumOfSquares, ScaleByWindowSumOfSquares)
from tutorial.optim.proximal import FtrlProximal
from tutorial.optim.transforms import AddDecayedWeights, Clip, ScaleByLr, Trace


@mx.optimizer.register
class TutorialAdaGrad(ChainOptimizer):
    """AdaGrad (Duchi et al. 2011), the deck's η0 / sqrt(K + Σ g²) with K = ``eps``::

        h = h + clip(g)²                                   (h starts at 0)
        w = w - lr * (clip(g) / sqrt(h + eps) + wd * w)
    """

    def __init__(self, eps=1e-7, **kwargs):
        check_settings(eps=eps)
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def chain(self):
        return (Clip(), ScaleBySumOfSquares(self.float_stable_eps), AddDecayedWeights(),
                ScaleByLr())


@mx.optimizer.register
class TutorialLocalAdaGrad(TutorialAdaGrad):
    """The deck's local AdaGrad: only the last ``tau`` squared gradients count::

        h_t = Σ_{s = t-tau+1..t} clip(g_s)²
        w = w - lr * (clip(g) / sqrt(h_t + eps) + wd * w)

    With tau >= the number of steps it is AdaGrad. Memory: tau copies of each weight.
    """

    def __init__(self, tau=10, **kwargs):
        if not isinstance(tau, int) or isinstance(tau, bool) or tau < 1:
            raise ValueError("tau=%r is not a window length: use an integer >= 1." % (tau,))
        super().__init__(**kwargs)
        self.tau = tau

    def chain(self):
        return (Clip(), ScaleByWindowSumOfSquares(self.tau, self.float_stable_eps),
                AddDecayedWeights(), ScaleByLr())


@mx.optimizer.register
class TutorialRMSProp(ChainOptimizer):
    """RMSProp: Tieleman & Hinton, or Graves' centered form with ``centered=True``::

        u = clip(g + wd * w)
        n = gamma1 * n + (1 - gamma1) * u²
        plain:     w = w - lr * u / sqrt(n + epsilon)
        centered:  ḡ = gamma1 * ḡ + (1 - gamma1) * u
                   d = gamma2 * d - lr * u / sqrt(n - ḡ² + epsilon);   w = w + d
        clip_weights:  w = clip(w, -clip_weights, clip_weights)   (None: no clipping)
    """
    default_learning_rate = 0.001

    def __init__(self, gamma1=0.9, gamma2=0.9, epsilon=1e-8, centered=False, clip_weights=None,
                 **kwargs):
        check_settings(gamma1=gamma1, gamma2=gamma2, epsilon=epsilon, clip_weights=clip_weights)
        super().__init__(**kwargs)
        self.gamma1, self.gamma2, self.epsilon = gamma1, gamma2, epsilon
        self.centered = bool(centered)
        self.clip_weights = clip_weights

    def update(self, index, weight, grad, state):
        super().update(index, weight, grad, state)
        if self.clip_weights is not None:          # after the step, as rmsprop_update does
            mx.nd.clip(weight, -self.clip_weights, self.clip_weights, out=weight)

    def chain(self):
        if not self.centered:
            return (AddDecayedWeights(), Clip(), ScaleByRms(self.gamma1, self.epsilon),
                    ScaleByLr())
        return (AddDecayedWeights(), Clip(), ScaleByCenteredRms(self.gamma1, self.epsilon),
                ScaleByLr(), Trace(self.gamma2))


@mx.optimizer.register
class TutorialAdaDelta(ChainOptimizer):
    """AdaDelta (Zeiler 2012)::

        a = rho * a + (1 - rho) * clip(g)²
        d = sqrt(b + epsilon) / sqrt(a + epsilon) * clip(g)
        b = rho * b + (1 - rho) * d²
        w = w - lr * (d + wd * w)

    ``learning_rate`` defaults to 1.0 (Zeiler's method has none). MXNet's AdaDelta ignores
    its learning rate (and schedules) altogether; with lr = 1 the two agree.
    """
    default_learning_rate = 1.0

    def __init__(self, rho=0.9, epsilon=1e-5, **kwargs):
        check_settings(rho=rho)
        check_range("epsilon", epsilon, 0.0, low_open=True)   # > 0: the first step is eps/eps
        super().__init__(**kwargs)
        self.rho, self.epsilon = rho, epsilon

    def chain(self):
        return (Clip(), ScaleByAdaDelta(self.rho, self.epsilon), AddDecayedWeights(),
                ScaleByLr())


@mx.optimizer.register
class TutorialAdam(ChainOptimizer):
    """Adam (Kingma & Ba 2015) with MXNet's placement of epsilon and bias correction::

        u = clip(g + wd * w)
        m = beta1 * m + (1 - beta1) * u;   v = beta2 * v + (1 - beta2) * u²
        w = w - lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + epsilon)

    ``lazy_update`` as in MXNet: with a row_sparse gradient only its rows move.
    """
    default_learning_rate = 0.001

    def __init__(self, beta1=0.9, beta2=0.999, epsilon=1e-8, lazy_update=True, **kwargs):
        check_settings(beta1=beta1, beta2=beta2, epsilon=epsilon)
        super().__init__(**kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lazy_update = bool(lazy_update)

    def chain(self):
        return (AddDecayedWeights(), Clip(),
                ScaleByAdam(self.beta1, self.beta2, self.epsilon),
                ScaleByLr(AdamStepSize(self.beta1, self.beta2)))


@mx.optimizer.register
class TutorialAdamax(ChainOptimizer):
    """Adamax (Kingma & Ba 2015, section 7), Adam with an infinity norm::

        u = clip(g + wd * w)
        m = beta1 * m + (1 - beta1) * u;   r = max(beta2 * r, |u|)
        w = w - lr / (1 - beta1^t) * m / (r + epsilon)

    With the default ``epsilon=0`` this is the paper's and MXNet's update, and a
    coordinate whose first u is exactly 0 (a zero-initialised bias of a unit that no
    example activates, a weight on an always-black pixel when wd = 0) computes 0/0 = NaN.
    ``epsilon > 0`` (Keras's placement) makes that step 0/epsilon = 0 instead.
    """
    default_learning_rate = 0.002

    def __init__(self, beta1=0.9, beta2=0.999, epsilon=0.0, **kwargs):
        check_settings(beta1=beta1, beta2=beta2, epsilon=epsilon)
        super().__init__(**kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def chain(self):
        return (AddDecayedWeights(), Clip(), ScaleByAdamax(self.beta1, self.beta2, self.epsilon),
                ScaleByLr(AdamStepSize(self.beta1)))


@mx.optimizer.register
class TutorialNadam(ChainOptimizer):
    """Nadam (Dozat 2016): Adam with Nesterov momentum and a warming momentum schedule::

        u = clip(g + wd * w)
        μ_t = beta1 * (1 - 0.5 * 0.96^(t * schedule_decay));   P_t = μ_1 ··· μ_t
        m = beta1 * m + (1 - beta1) * u;   v = beta2 * v + (1 - beta2) * u²
        m̄ = (1 - μ_t) * u / (1 - P_t) + μ_{t+1} * m / (1 - P_t * μ_{t+1})
        w = w - lr * m̄ / (sqrt(v / (1 - beta2^t)) + epsilon)

    P_t is kept per parameter. MXNet 1.9.1 keeps one P for the whole optimizer and
    multiplies it once per *parameter* update, so with k parameters its schedule runs k
    times too fast (a bug): ours equals MXNet's on a one-parameter model and a NumPy
    reference otherwise.
    """
    default_learning_rate = 0.001

    def __init__(self, beta1=0.9, beta2=0.999, epsilon=1e-8, schedule_decay=0.004, **kwargs):
        check_settings(beta1=beta1, beta2=beta2, epsilon=epsilon, schedule_decay=schedule_decay)
        super().__init__(**kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.schedule_decay = schedule_decay

    def chain(self):
        return (AddDecayedWeights(), Clip(),
                ScaleByNadam(self.beta1, self.beta2, self.epsilon, self.schedule_decay),
                ScaleByLr())


@mx.optimizer.register
class TutorialFtrl(ChainOptimizer):
    """FTRL-Proximal (McMahan et al. 2013) with L1 ``lamda1`` and L2 ``wd``::

        u = clip(g)
        z = z + u - (sqrt(n + u²) - sqrt(n)) * w / lr;   n = n + u²
        w = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd)   where |z| > lamda1
        w = 0                                                       elsewhere
    """
    default_learning_rate = 0.1

    def __init__(self, lamda1=0.01, beta=1.0, **kwargs):
        check_settings(lamda1=lamda1, beta=beta)
        super().__init__(**kwargs)
        if self.lr_scheduler is None:
            check_range("learning_rate", self.lr, 0.0, low_open=True)
        self.lamda1, self.beta = lamda1, beta

    def chain(self):
        return (Clip(), FtrlProximal(self.lamda1, self.beta))
