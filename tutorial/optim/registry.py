"""``create(name, **kw)`` and ``names()``: the optimizers of this course by their short names.

Each one is also registered with MXNet as ``'tutorial' + name`` (e.g. ``'tutorialadam'``),
so its key can never collide with MXNet's own ``'adam'``; ``gluon.Trainer`` accepts either
the instance or that key.

>>> names()[:4]
['sgd', 'momentum', 'nag', 'adagrad']
>>> type(create('adam', learning_rate=0.01)).__name__
'TutorialAdam'
>>> create('adamw')
Traceback (most recent call last):
...
ValueError: Unknown optimizer 'adamw'. Choose one of: sgd, momentum, nag, adagrad, local_adagrad, rmsprop, adadelta, adam, adamax, nadam, ftrl, sgld, dcasgd, signum, lars, lamb.
"""

import mxnet as mx

from tutorial.optim.adaptive import (TutorialAdaDelta, TutorialAdaGrad, TutorialAdam,
                                     TutorialAdamax, TutorialFtrl, TutorialLocalAdaGrad,
                                     TutorialNadam, TutorialRMSProp)
from tutorial.optim.layerwise import TutorialLAMB, TutorialLARS
from tutorial.optim.options import init_keywords
from tutorial.optim.sgd_family import (TutorialDCASGD, TutorialMomentum, TutorialNAG,
                                       TutorialSGD, TutorialSGLD, TutorialSignum)

OPTIMIZERS = {
    "sgd": TutorialSGD, "momentum": TutorialMomentum, "nag": TutorialNAG,
    "adagrad": TutorialAdaGrad, "local_adagrad": TutorialLocalAdaGrad,
    "rmsprop": TutorialRMSProp, "adadelta": TutorialAdaDelta, "adam": TutorialAdam,
    "adamax": TutorialAdamax, "nadam": TutorialNadam, "ftrl": TutorialFtrl,
    "sgld": TutorialSGLD, "dcasgd": TutorialDCASGD, "signum": TutorialSignum,
    "lars": TutorialLARS, "lamb": TutorialLAMB,
}

# The keywords every MXNet optimizer takes, read from its base class (so they cannot drift).
BASE_KEYWORDS = tuple(init_keywords(mx.optimizer.Optimizer))


def names():
    """The short names ``create`` accepts, in the order the deck introduces them."""
    return list(OPTIMIZERS)


def keywords(name):
    """The keyword arguments optimizer ``name`` accepts (its own, then the common ones).

    >>> keywords('nag')[:3]
    ['momentum', 'rescale_grad', 'param_idx2name']
    """
    own = [k for k in init_keywords(OPTIMIZERS[name]) if k not in BASE_KEYWORDS]
    return own + list(BASE_KEYWORDS)


def create(name, **kwargs):
    """A new optimizer ``name`` (see :func:`names`) with MXNet's keyword names."""
    key = str(name).lower()
    if key not in OPTIMIZERS:
        raise ValueError("Unknown optimizer %r. Choose one of: %s." % (name, ", ".join(names())))
    unknown = sorted(set(kwargs) - set(keywords(key)))
    if unknown:
        raise TypeError("%s does not take %s. It takes: %s." % (
            key, ", ".join(unknown), ", ".join(keywords(key))))
    return OPTIMIZERS[key](**kwargs)
