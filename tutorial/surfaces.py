"""Two-dimensional test functions for watching optimizers move.

Each surface is a small frozen object with ``value(x, y)`` and ``grad(x, y)`` in NumPy
(both accept arrays, so a contour grid costs one call), a suggested start, the plotting
window and its minimisers. Gradients are written by hand and checked against finite
differences in ``tests/test_surfaces.py``.

>>> q = SURFACES["ill_conditioned"]
>>> float(q.value(0.0, 0.0)), [float(g) for g in q.grad(1.0, 1.0)]
(0.0, [0.1, 2.0])
"""

import dataclasses
from typing import Callable, Tuple

import numpy as np


@dataclasses.dataclass(frozen=True)
class Surface:
    name: str
    value: Callable
    grad: Callable
    start: Tuple[float, float]
    window: Tuple[float, float, float, float]     # xmin, xmax, ymin, ymax
    minima: Tuple[Tuple[float, float], ...]
    about: str


def _quad(x, y):
    return 0.05 * x ** 2 + y ** 2


def _quad_grad(x, y):
    return 0.1 * x, 2.0 * y


def _rosen(x, y):
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


def _rosen_grad(x, y):
    return -2 * (1 - x) - 400 * x * (y - x ** 2), 200 * (y - x ** 2)


def _saddle(x, y):
    return x ** 2 - y ** 2 + 0.25 * y ** 4      # saddle at 0, minima at y = ±sqrt(2)


def _saddle_grad(x, y):
    return 2 * x, -2 * y + y ** 3


# A sharp well near (-1, 0) (curvature about 50; the flat well pulls its minimum to
# x = -0.99927) and a flat, slightly deeper well at (2, 0).
def _sharp_flat(x, y):
    sharp = -1.0 * np.exp(-25.0 * ((x + 1) ** 2 + y ** 2))
    flat = -1.1 * np.exp(-0.5 * ((x - 2) ** 2 + y ** 2))
    return sharp + flat


def _sharp_flat_grad(x, y):
    sharp = -1.0 * np.exp(-25.0 * ((x + 1) ** 2 + y ** 2))
    flat = -1.1 * np.exp(-0.5 * ((x - 2) ** 2 + y ** 2))
    gx = sharp * (-50.0 * (x + 1)) + flat * (-1.0 * (x - 2))
    gy = sharp * (-50.0 * y) + flat * (-1.0 * y)
    return gx, gy


SURFACES = {
    "ill_conditioned": Surface(
        "ill_conditioned", _quad, _quad_grad, (-5.0, -2.0), (-6, 6, -3, 3), ((0.0, 0.0),),
        "f = 0.05 x² + y²: curvatures differ 20×, so one learning rate fits neither axis"),
    "rosenbrock": Surface(
        "rosenbrock", _rosen, _rosen_grad, (-1.5, 2.0), (-2, 2, -1, 3), ((1.0, 1.0),),
        "Rosenbrock's banana valley: easy to enter, slow to follow to (1, 1)"),
    "saddle": Surface(
        "saddle", _saddle, _saddle_grad, (-2.0, 1e-3), (-2.5, 2.5, -2.2, 2.2),
        ((0.0, 2 ** 0.5), (0.0, -2 ** 0.5)),
        "a saddle at the origin: full-batch GD started on the ridge barely leaves it"),
    "sharp_flat": Surface(
        "sharp_flat", _sharp_flat, _sharp_flat_grad, (-1.3, 0.4), (-2.5, 4.5, -2, 2),
        ((-0.99927, 0.0), (2.0, 0.0)),
        "a sharp minimum at (-1, 0) and a wide, slightly deeper one at (2, 0)"),
}
