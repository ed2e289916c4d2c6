"""Watch an optimizer move: run it on a 2-D surface and return the path it takes.

The weight is a 2-element NDArray and the step is taken by the optimizer object itself,
through ``mx.optimizer.get_updater`` (the same call ``gluon.Trainer`` and the kvstore
make), so a path shows the very algorithm a notebook trains with. Only the gradient comes
from NumPy: the surfaces of :mod:`tutorial.surfaces` write it by hand. ``noise`` adds
seeded Gaussian noise to each gradient, a stand-in for the minibatch noise of SGD.

Computing and drawing are apart: :func:`run` returns a :class:`Path`; plots and the race
widget (:mod:`tutorial.viz.race`) only draw paths.

>>> import mxnet as mx
>>> path = run("ill_conditioned", mx.optimizer.SGD(learning_rate=0.5), steps=3)
>>> path.points.round(3).tolist()
[[-5.0, -2.0], [-4.75, 0.0], [-4.512, 0.0], [-4.287, 0.0]]
>>> path.losses.round(3).tolist(), path.diverged
([5.25, 1.128, 1.018, 0.919], False)
"""

import copy
import dataclasses

import mxnet as mx
import numpy as np

from tutorial.surfaces import SURFACES


@dataclasses.dataclass(frozen=True)
class Path:
    """Where the optimizer went.

    ``points[0]`` is the start and ``points[k]`` the weight after k updates. A run that
    blows up stops early (``diverged``), so ``points`` can be shorter than steps + 1.
    """
    points: np.ndarray    # (n, 2) float64
    losses: np.ndarray    # (n,)   surface value at each point
    diverged: bool        # left the box |w| < bound or became nan

    @property
    def final_loss(self):
        return float(self.losses[-1])


def surface_named(surface):
    """A :class:`tutorial.surfaces.Surface`, given one or its name."""
    if isinstance(surface, str):
        if surface not in SURFACES:
            raise ValueError(f"unknown surface {surface!r}; choose one of {sorted(SURFACES)}")
        return SURFACES[surface]
    return surface


def _optimizer(optimizer, kwargs):
    if isinstance(optimizer, str):
        from tutorial import optim    # imported late: the trajectories need no registry
        return optim.create(optimizer, **kwargs)
    if not isinstance(optimizer, mx.optimizer.Optimizer):
        raise TypeError(f"optimizer must be an mx.optimizer.Optimizer or a name for "
                        f"tutorial.optim.create, got {type(optimizer).__name__}")
    if kwargs:
        raise TypeError(f"keyword arguments {sorted(kwargs)} only go with an optimizer "
                        f"name; set them when you create the optimizer object")
    return copy.deepcopy(optimizer)   # its update counter must not leak between runs


def run(surface, optimizer, steps, start=None, noise=0.0, seed=0, bound=1e6, **kwargs):
    """Take ``steps`` updates of ``optimizer`` on ``surface`` from ``start``.

    ``surface``: a Surface or its name in ``tutorial.surfaces.SURFACES``.
    ``optimizer``: an ``mx.optimizer.Optimizer`` (copied, so the caller's object and its
    update counter stay untouched) or a name for ``tutorial.optim.create`` with its
    keyword arguments in ``kwargs``.
    ``noise``: standard deviation of Gaussian noise added to each gradient (seeded).
    """
    surface = surface_named(surface)
    if not isinstance(steps, (int, np.integer)) or steps < 0:
        raise ValueError(f"steps must be a whole number >= 0, got {steps!r}")
    opt = _optimizer(optimizer, kwargs)
    updater = mx.optimizer.get_updater(opt)
    start = surface.start if start is None else start
    weight = mx.nd.array(np.asarray(start, dtype=np.float64).reshape(2), dtype="float32")
    rng = np.random.default_rng(seed)
    point = weight.asnumpy().astype(np.float64)
    points, diverged = [point], False
    for _ in range(steps):
        g = np.asarray(surface.grad(point[0], point[1]), dtype=np.float64)
        if noise:
            g = g + noise * rng.standard_normal(2)
        updater(0, mx.nd.array(g, dtype="float32"), weight)
        point = weight.asnumpy().astype(np.float64)
        if not np.all(np.isfinite(point)) or np.abs(point).max() > bound:
            diverged = True
            break
        points.append(point)
    points = np.array(points)
    losses = np.asarray(surface.value(points[:, 0], points[:, 1]), dtype=np.float64)
    return Path(points, losses, diverged)


def padded(path, length):
    """The path's points as exactly ``length`` rows: cut, or repeat the last point."""
    pts = path.points[:length]
    if len(pts) < length:
        pts = np.concatenate([pts, np.repeat(pts[-1:], length - len(pts), axis=0)])
    return pts
