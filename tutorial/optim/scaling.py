"""Learning rates for large batches: the recipes, and LARS/LAMB set up so they work.

K workers with batch b each take one step on a batch of K*b. Goyal et al. (2017) match
K small steps with one large one by assuming the gradient barely changes over K steps:
eta_hat / (K n) = eta / n, so eta_hat = K eta (the *linear scaling rule*). The assumption
is worst at the start of training, hence a *gradual warmup* from a small lr to eta_hat
(:func:`warmup_scaled`). Adam-type optimizers, whose steps are already normalised by the
gradient's size, are usually scaled by the square root instead (Krizhevsky 2014;
Malladi et al. 2022): averaging K times more gradients divides their noise's standard
deviation by sqrt(K).

>>> linear_scaled_lr(0.1, base_batch=256, batch_size=8192)
3.2
>>> round(sqrt_scaled_lr(1e-3, base_batch=256, batch_size=1024), 6)
0.002
>>> scaled_lr("none", 0.1, 256, 8192)
0.1

**Momentum correction.** MXNet folds the learning rate into the momentum buffer
(v <- mu v + eta_t g; w <- w - v); PyTorch keeps it outside (u <- mu u + g;
w <- w - eta_t u). The two agree while eta is constant. When eta changes from eta_t to
eta_{t+1} (every step of a warmup), the folded buffer still carries the old rate; Goyal
et al. multiply it by eta_{t+1} / eta_t before the step, which makes the two agree again:

>>> momentum_correction(new_lr=0.2, old_lr=0.1)
2.0

**LARS and LAMB need parameter names.** Their trust ratio ||w|| / ||g|| is meant for
weight matrices; You et al. leave biases and batch-norm gamma/beta out of it. MXNet's
optimizers learn names only from ``param_idx2name``, and ``gluon.Trainer`` never passes
one: without it *every* parameter gets the trust ratio. The Trainer numbers parameters in
sorted-name order (``gluon/trainer.py``: ``for key in sorted(params.keys())``), and
:func:`param_idx2name` builds the matching map. :func:`make_trainer` does both, and
gives a schedule through ``lr_scheduler`` only: passing ``learning_rate`` as well makes
MXNet overwrite the scheduler's base rate, which silently breaks a warmup.

**No weight decay on biases.** Goyal et al. and You et al. also leave biases and
batch-norm gamma/beta out of weight decay. ``param_idx2name`` alone does not do that under
a Trainer: MXNet's optimizer reads each Parameter's own ``wd_mult`` first (the Trainer
always passes them), and that is 1. :func:`no_decay_on_biases` sets it to 0.
"""

import math

from mxnet import gluon

from tutorial.optim.trust_ratio import BIAS_AND_NORM_SUFFIXES
from tutorial.validate import check_range

RULES = ("none", "linear", "sqrt")


def _check_positive(**values):
    for name, value in values.items():
        check_range(name, value, 0.0, low_open=True)


def linear_scaled_lr(base_lr, base_batch, batch_size):
    """eta_hat = eta * batch_size / base_batch (Goyal et al. 2017)."""
    _check_positive(base_lr=base_lr, base_batch=base_batch, batch_size=batch_size)
    return base_lr * batch_size / base_batch


def sqrt_scaled_lr(base_lr, base_batch, batch_size):
    """eta_hat = eta * sqrt(batch_size / base_batch), the usual rule for Adam and LAMB."""
    _check_positive(base_lr=base_lr, base_batch=base_batch, batch_size=batch_size)
    return base_lr * math.sqrt(batch_size / base_batch)


def scaled_lr(rule, base_lr, base_batch, batch_size):
    """The learning rate for ``batch_size`` under ``rule``: 'none', 'linear' or 'sqrt'."""
    if rule == "none":
        _check_positive(base_lr=base_lr, base_batch=base_batch, batch_size=batch_size)
        return base_lr
    if rule == "linear":
        return linear_scaled_lr(base_lr, base_batch, batch_size)
    if rule == "sqrt":
        return sqrt_scaled_lr(base_lr, base_batch, batch_size)
    raise ValueError(f"unknown scaling rule {rule!r}: use one of {', '.join(RULES)}")


def warmup_scaled(base_lr, base_batch, batch_size, warmup_steps, rule="linear"):
    """Goyal's recipe as a ``step -> lr`` schedule: ramp from ``base_lr`` to the scaled lr.

    The ramp is :func:`tutorial.optim.schedules.warmup` from ``start_lr=base_lr`` (the
    rate known to work at ``base_batch``, not 0) to ``scaled_lr(rule, ...)`` over
    ``warmup_steps`` updates, then constant. Steps count as in ``tutorial.optim.schedules``:
    the first update is step 0 and already one ``warmup_steps``-th up the ramp. For a
    decaying schedule after the ramp, join it yourself:
    ``warmup(cosine(scaled_lr(...), T), warmup_steps, start_lr=base_lr)``.

    >>> lr = warmup_scaled(0.1, 256, 1024, warmup_steps=3)
    >>> [round(lr(t), 3) for t in (0, 1, 2, 3, 100)]
    [0.2, 0.3, 0.4, 0.4, 0.4]
    """
    from tutorial.optim.schedules import constant, warmup

    return warmup(constant(scaled_lr(rule, base_lr, base_batch, batch_size)), warmup_steps,
                  start_lr=base_lr)


def momentum_correction(new_lr, old_lr):
    """Factor for an lr-folded momentum buffer when lr goes from ``old_lr`` to ``new_lr``."""
    _check_positive(new_lr=new_lr, old_lr=old_lr)
    return new_lr / old_lr


def param_idx2name(params):
    """``{index: name}`` in the order ``gluon.Trainer`` numbers ``params``.

    A ParameterDict or dict is numbered in sorted-name order; a list in its own order.

    >>> from mxnet import gluon
    >>> net = gluon.nn.Dense(2, prefix="out_")
    >>> param_idx2name(net.collect_params())
    {0: 'out_bias', 1: 'out_weight'}
    """
    if isinstance(params, (dict, gluon.ParameterDict)):
        return {i: name for i, name in enumerate(sorted(params.keys()))}
    if isinstance(params, (list, tuple)):
        return {i: p.name for i, p in enumerate(params)}
    raise TypeError(f"params must be a ParameterDict (net.collect_params()), a dict or a "
                    f"list of Parameters, got {type(params).__name__}")


def no_decay_on_biases(params):
    """Set ``wd_mult = 0`` on every bias, gamma and beta in ``params``; return their names."""
    if not isinstance(params, (dict, gluon.ParameterDict)):
        raise TypeError(f"params must be a ParameterDict (net.collect_params()) or a dict, "
                        f"got {type(params).__name__}")
    changed = []
    for name in sorted(params.keys()):
        if name.endswith(BIAS_AND_NORM_SUFFIXES):
            params[name].wd_mult = 0.0
            changed.append(name)
    return changed


def make_trainer(params, name, learning_rate=None, schedule=None, **optimizer_kw):
    """A ``gluon.Trainer`` running ``tutorial.optim.create(name, ...)`` set up for large batches.

    Gives the optimizer ``param_idx2name`` (so LARS/LAMB leave biases and batch-norm
    parameters out of the trust ratio), and a ``schedule`` (a ``step -> lr`` function)
    as its ``lr_scheduler``. Give either ``learning_rate`` or ``schedule``, not both.
    """
    from tutorial import optim

    if (learning_rate is None) == (schedule is None):
        raise ValueError("give exactly one of learning_rate= (a constant rate) or schedule= "
                         "(a step -> lr function, e.g. from tutorial.optim.schedules): MXNet "
                         "lets learning_rate overwrite a scheduler's base rate")
    if schedule is None:
        optimizer = optim.create(name, learning_rate=learning_rate,
                                 param_idx2name=param_idx2name(params), **optimizer_kw)
    else:
        optimizer = optim.create(name, lr_scheduler=optim.schedules.as_lr_scheduler(schedule),
                                 param_idx2name=param_idx2name(params), **optimizer_kw)
    return gluon.Trainer(params, optimizer)
