"""Optimizers built from small transformations, learning-rate schedules, clipping.

``create(name, **kw)`` returns an ``mx.optimizer.Optimizer`` usable by ``gluon.Trainer``;
``names()`` lists the names. Layout: ``transforms``/``moments``/``trust_ratio`` (the
pieces), ``adapter`` (the one bridge to MXNet's Optimizer API), ``sgd_family``/
``adaptive``/``layerwise`` (the named optimizers), ``registry`` (create, names),
``schedules`` (step -> lr), ``clipping``.
"""

from tutorial.optim import clipping, schedules
from tutorial.optim.registry import create, names

__all__ = ["clipping", "create", "names", "schedules"]
