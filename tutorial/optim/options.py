"""Check an optimizer's settings before MXNet builds it: MXNet's own optimizers do not.

``mx.optimizer.create('sgd', learning_rate=-1)`` trains uphill, ``momentum=1`` never
forgets a gradient, ``learning_rate=inf`` turns the first step into NaN, and a misspelt
keyword fails deep inside ``Optimizer.__init__``. The trainers call
:func:`check_optimizer_options` on a name and its keywords (and :func:`check_optimizer`
on an optimizer someone built) before any MXNet work, so the error names the setting.

>>> check_optimizer_options("sgd", {"learning_rate": 0.1, "momentum": 0.9})
{'learning_rate': 0.1, 'momentum': 0.9}
>>> check_optimizer_options("sgd", {"learning_rate": -1})
Traceback (most recent call last):
...
ValueError: learning_rate=-1 is out of range: use a number in [0.0, inf).
>>> check_optimizer_options("sgd", {"lr": 0.1})
Traceback (most recent call last):
...
TypeError: optimizer 'sgd' does not take lr. It takes: momentum, lazy_update, rescale_grad, ...
"""

import inspect
import numbers

import mxnet as mx

from tutorial.validate import check_range

# keyword: (low, high, low_open, high_open); None values are allowed where MXNet means "off"
RANGES = {
    "learning_rate": (0.0, None, False, False),
    "momentum": (0.0, 1.0, False, True),
    "wd": (0.0, None, False, False),
    "wd_lh": (0.0, None, False, False),
    "rescale_grad": (0.0, None, True, False),
    "clip_gradient": (0.0, None, True, False),
    "clip_weights": (0.0, None, True, False),
    "beta1": (0.0, 1.0, False, True),
    "beta2": (0.0, 1.0, False, True),
    "gamma1": (0.0, 1.0, False, True),
    "gamma2": (0.0, 1.0, False, True),
    "rho": (0.0, 1.0, False, True),
    "epsilon": (0.0, None, False, False),
    "eps": (0.0, None, False, False),
    "eta": (0.0, None, True, False),
    "bias_lr_mult": (0.0, None, True, False),
    "lamda": (0.0, None, False, False),
    "lamda1": (0.0, None, False, False),
    "beta": (0.0, None, False, False),
    "schedule_decay": (0.0, None, False, False),
    "lower_bound": (0.0, None, False, False),
    "upper_bound": (0.0, None, False, False),
}
_OFF_WHEN_NONE = ("clip_gradient", "clip_weights", "lower_bound", "upper_bound",
                  "learning_rate")


def init_keywords(klass):
    """The keywords ``klass(...)`` accepts: each ``__init__`` along the MRO, in order."""
    names = []
    for base in klass.__mro__:
        if "__init__" in vars(base):
            params = inspect.signature(base.__init__).parameters.values()
            names += [p.name for p in params if p.name != "self" and p.name not in names
                      and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return names


def check_values(options):
    """Range-check the common keywords in ``options``; a copy with plain floats."""
    checked = dict(options)
    for key, value in options.items():
        if key in RANGES and not (value is None and key in _OFF_WHEN_NONE):
            low, high, low_open, high_open = RANGES[key]
            checked[key] = check_range(key, value, low, high, low_open, high_open)
    return checked


def check_settings(**settings):
    """Range-check settings by keyword with the one table, RANGES (our optimizers call it).

    >>> check_settings(beta1=0.9, epsilon=1e-8)
    {'beta1': 0.9, 'epsilon': 1e-08}
    >>> check_settings(beta1=1.0)
    Traceback (most recent call last):
    ...
    ValueError: beta1=1.0 is out of range: use a number in [0.0, 1.0).
    """
    unknown = sorted(set(settings) - set(RANGES))
    if unknown:
        raise KeyError(f"no range is known for {', '.join(unknown)}: add it to RANGES")
    return check_values(settings)


def check_optimizer_options(name, options):
    """``options`` checked for MXNet's optimizer ``name``: known name, known keywords, ranges.

    Returns a copy (NumPy scalars become floats). A bad value or name is a ValueError, an
    unknown keyword a TypeError (as for any Python call), each with the fix.
    """
    registry = mx.optimizer.Optimizer.opt_registry
    key = str(name).lower()
    if key not in registry:
        raise ValueError(f"unknown optimizer {name!r}: MXNet knows "
                         f"{', '.join(sorted(registry))} (tutorial.optim.create(...) builds ours)")
    accepted = init_keywords(registry[key])
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise TypeError(f"optimizer {name!r} does not take {', '.join(unknown)}. "
                         f"It takes: {', '.join(accepted)}.")
    return check_values(options)


def check_optimizer(optimizer):
    """An optimizer instance, checked: its learning rate and the common settings it holds."""
    if not isinstance(optimizer, mx.optimizer.Optimizer):
        raise ValueError(f"optimizer must be a name such as 'sgd' or an mx.optimizer.Optimizer, "
                         f"got {optimizer!r}")
    held = {key: getattr(optimizer, key) for key in RANGES
            if key != "learning_rate" and isinstance(getattr(optimizer, key, None), numbers.Real)}
    if optimizer.lr_scheduler is None:
        held["learning_rate"] = optimizer.lr
    check_values(held)
    return optimizer
