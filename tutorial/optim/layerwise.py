"""Layer-wise adaptive optimizers for large batches: LARS (SGD-based) and LAMB (Adam-based).

Conventions as in :mod:`tutorial.optim.sgd_family`: t counts from 1, g = rescale_grad·grad.
The trust ratio is computed per parameter array (a "layer" is one weight or bias array).
"""

import mxnet as mx

from tutorial.optim.adapter import ChainOptimizer
from tutorial.optim.options import check_settings
from tutorial.optim.moments import ScaleByAdam
from tutorial.optim.transforms import AddDecayedWeights, Clip, ScaleByLr, Trace
from tutorial.optim.trust_ratio import LambTrustRatio, LarsTrustRatio


@mx.optimizer.register
class TutorialLARS(ChainOptimizer):
    """LARS (You et al. 2017): SGD with momentum whose lr is scaled per layer::

        trust = eta * ||w|| / (||g|| + wd * ||w|| + eps)   (1 if ||w|| or ||g|| is 0,
                                                            bias_lr_mult for bias / gamma / beta)
        m = momentum' * m - lr * trust * (clip(g) + wd * w)
        w = w + m
        momentum' = momentum * lr_t / lr_{t-1}  if momentum_correction, else momentum

    ``||g||`` is the norm before clipping. Which arrays count as bias/gamma/beta is read
    from ``param_idx2name`` when given, otherwise from the Gluon parameter's name (so
    through ``gluon.Trainer`` they are excluded with no extra argument; MXNet's own LARS
    excludes them only when given ``param_idx2name``). The momentum correction uses this
    parameter's own previous lr; MXNet's applies it to the first aggregation chunk of each
    step only (``MXNET_OPTIMIZER_AGGREGATION_SIZE``), a bug. ``lazy_update`` as in MXNet:
    with a row_sparse gradient only its rows move (the norms use the whole arrays).

    ``bias_lr_mult``: the arrays left out of the trust ratio take a plain momentum step at
    ``lr * bias_lr_mult``. MXNet's LARS has no such setting (it is 1 there). LARS's ``lr``
    is sized for steps that the trust ratio scales down, so at 1 the biases step at a rate
    far above SGD's (80 times SGD's in notebook 11's race); ``bias_lr_mult = sgd_lr /
    lars_lr`` gives them SGD's rate.
    """

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0.0,
                 momentum_correction=True, bias_lr_mult=1.0, **kwargs):
        check_settings(momentum=momentum, eta=eta, eps=eps, bias_lr_mult=bias_lr_mult)
        super().__init__(**kwargs)
        self.momentum, self.eta, self.eps = momentum, eta, eps
        self.bias_lr_mult = float(bias_lr_mult)
        self.momentum_correction = bool(momentum_correction)
        self.lazy_update = bool(lazy_update)

    def set_wd_mult(self, args_wd_mult):
        """As MXNet's LARS: given ``param_idx2name``, only names ending in _weight get wd
        (gluon.Trainer's per-parameter ``wd_mult`` takes precedence over this)."""
        super().set_wd_mult(args_wd_mult)
        for name in self.idx2name.values():
            if not name.endswith("_weight") and name not in args_wd_mult:
                self.wd_mult[name] = 0.0

    def chain(self):
        steps = (Clip(), AddDecayedWeights(), ScaleByLr(),
                 LarsTrustRatio(self.eta, self.eps, self.bias_lr_mult))
        if self.momentum:
            steps += (Trace(self.momentum, lr_corrected=self.momentum_correction),)
        return steps


@mx.optimizer.register
class TutorialLAMB(ChainOptimizer):
    """LAMB (You et al. 2019): Adam's direction plus decoupled decay, scaled per layer::

        m = beta1 * m + (1 - beta1) * clip(g);   v = beta2 * v + (1 - beta2) * clip(g)²
        m̂ = m / (1 - beta1^t);  v̂ = v / (1 - beta2^t)     (m̂ = m, v̂ = v without
                                                             bias_correction)
        u = m̂ / (sqrt(v̂) + epsilon) + wd * w
        r1 = clip(||w||, lower_bound, upper_bound);  r2 = ||u||
        w = w - lr * (r1 / r2) * u                        (ratio 1 if r1 or r2 is 0)

    MXNet's LAMB scales every array. The reference implementation used for BERT leaves
    biases and normalisation parameters out of the layer adaptation:
    ``exclude_bias_and_norm=True`` gives arrays named ...bias, ...gamma and ...beta ratio
    1. Their weight decay is a separate matter: given ``param_idx2name``, MXNet's Optimizer
    already sets wd_mult = 0 for names ending in neither _weight nor _gamma; through
    ``gluon.Trainer`` use ``tutorial.optim.scaling.no_decay_on_biases``.
    """
    default_learning_rate = 0.001

    def __init__(self, beta1=0.9, beta2=0.999, epsilon=1e-6, lower_bound=None,
                 upper_bound=None, bias_correction=True, exclude_bias_and_norm=False,
                 **kwargs):
        check_settings(beta1=beta1, beta2=beta2, epsilon=epsilon, lower_bound=lower_bound,
                       upper_bound=upper_bound)
        super().__init__(**kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        self.bias_correction = bool(bias_correction)
        self.exclude_bias_and_norm = bool(exclude_bias_and_norm)

    def chain(self):
        correction = "moments" if self.bias_correction else "none"
        return (Clip(), ScaleByAdam(self.beta1, self.beta2, self.epsilon, correction),
                AddDecayedWeights(),
                LambTrustRatio(self.lower_bound, self.upper_bound, self.exclude_bias_and_norm),
                ScaleByLr())
