"""Optimizers built from small transformations, learning-rate schedules, clipping.

``create(name, **kw)`` returns an ``mx.optimizer.Optimizer`` usable by ``gluon.Trainer``;
``names()`` lists the names. Layout: ``transforms``/``moments``/``proximal``/``trust_ratio``
(the pieces), ``adapter`` (the one bridge to MXNet's Optimizer API), ``sgd_family``/
``adaptive``/``layerwise`` (the named optimizers), ``registry`` (create, names),
``options`` (checks MXNet optimizer settings before MXNet builds one), ``sparse``
(row_sparse gradients, lazy updates), ``schedules`` (step -> lr), ``clipping``,
``scaling`` (learning rates for large batches: linear and square-root scaling, warmup,
momentum correction, LARS/LAMB set up with parameter names) and ``trajectories`` (an
optimizer's path on a 2-D surface).

MXNet 1.9.1 behaviour found while pinning these against it (each checked in tests/):

- ``nag_mom_update(..., out=weight)`` (how its NAG calls it) reads the already updated
  weight for the weight-decay term of the momentum: wrong as soon as wd > 0.
- Nadam keeps one momentum-schedule product for all parameters and advances it once per
  parameter update, so with k parameters the schedule runs k times too fast.
- DCASGD with momentum > 0 raises (``if mom:`` on an NDArray).
- LARS skips bias/gamma/beta only when given ``param_idx2name`` (gluon.Trainer does not
  pass it); its momentum correction acts on the first aggregation chunk of each step only.
- AdaDelta ignores ``learning_rate`` (and schedules) and multiplies the caller's gradient
  by ``rescale_grad`` in place.
- Adam's docstring says lr·sqrt(1 - β1^t)/(1 - β2^t); the code computes sqrt(1 - β2^t)/(1 - β1^t).
- ``learning_rate=`` together with ``lr_scheduler=`` overwrites the scheduler's base_lr.
- ``signsgd_update`` (Signum with momentum 0) decays the weight outside the sign.
"""

from tutorial.optim import clipping, schedules
from tutorial.optim.registry import create, names

__all__ = ["clipping", "create", "names", "schedules"]
