"""Paths on the 2-D surfaces against a NumPy recurrence written out by hand, and GD on
the quadratic against theory: with curvature L, GD converges for lr < 2/L and diverges
for lr > 2/L."""

import mxnet as mx
import numpy as np
import pytest

from tutorial import optim
from tutorial.optim import trajectories
from tutorial.surfaces import SURFACES


def _create(source, name, **kw):
    """An optimizer from tutorial.optim ('ours') or MXNet's own ('mxnet')."""
    if source == "mxnet":
        return mx.optimizer.create({"momentum": "sgd"}.get(name, name), **kw)
    return optim.create(name, **kw)


def _numpy_momentum(surface, start, lr, mu, wd, steps):
    """Heavy ball as MXNet writes it: s <- mu s - lr (g + wd w); w <- w + s."""
    w, s, out = np.array(start, dtype=np.float64), np.zeros(2), []
    out.append(w.copy())
    for _ in range(steps):
        g = np.array(surface.grad(*w)) + wd * w
        s = mu * s - lr * g
        w = w + s
        out.append(w.copy())
    return np.array(out)


@pytest.mark.parametrize("source", ["ours", "mxnet"])
@pytest.mark.parametrize("surface", ["ill_conditioned", "rosenbrock", "saddle", "sharp_flat"])
def test_sgd_path_matches_numpy(source, surface):
    s = SURFACES[surface]
    lr = 1e-3 if surface == "rosenbrock" else 0.05
    opt = _create(source, "sgd", learning_rate=lr, wd=0.01)
    path = trajectories.run(s, opt, steps=40)
    want = _numpy_momentum(s, s.start, lr, 0.0, 0.01, 40)
    np.testing.assert_allclose(path.points, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(path.losses, s.value(want[:, 0], want[:, 1]), rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("source", ["ours", "mxnet"])
@pytest.mark.parametrize("mu", [0.5, 0.9])
def test_momentum_path_matches_numpy(source, mu):
    s = SURFACES["ill_conditioned"]
    opt = _create(source, "momentum", learning_rate=0.1, momentum=mu, wd=0.02)
    path = trajectories.run(s, opt, steps=60)
    want = _numpy_momentum(s, s.start, 0.1, mu, 0.02, 60)
    np.testing.assert_allclose(path.points, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("source", ["ours", "mxnet"])
def test_nag_path_is_the_decks_nesterov_at_the_look_ahead_point(source):
    # deck: m <- mu m + lr g(w - mu m); w <- w - m. MXNet's nag stores u = w - mu m.
    s, lr, mu = SURFACES["rosenbrock"], 1e-3, 0.9
    w, m, want = np.array(s.start), np.zeros(2), []
    for _ in range(51):
        want.append(w - mu * m)
        m = mu * m + lr * np.array(s.grad(*(w - mu * m)))
        w = w - m
    path = trajectories.run(s, _create(source, "nag", learning_rate=lr, momentum=mu), steps=50)
    np.testing.assert_allclose(path.points, np.array(want), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("lr, converges", [(0.5, True), (0.95, True), (1.05, False), (1.2, False)])
def test_gd_on_quadratic_obeys_two_over_curvature(lr, converges):
    # f = 0.05 x^2 + y^2: the largest curvature is 2, so the threshold is lr = 2/2 = 1.
    path = trajectories.run("ill_conditioned", mx.optimizer.SGD(learning_rate=lr), steps=400)
    assert path.diverged is not converges
    if converges:
        assert abs(path.points[-1, 1]) < 1e-6 and path.final_loss < path.losses[0] * 1e-3
    else:
        assert len(path.points) < 401


def test_noise_is_seeded_and_moves_gd_off_the_saddle():
    s = SURFACES["saddle"]
    gd = trajectories.run(s, mx.optimizer.SGD(learning_rate=0.05), steps=60, start=(-2.0, 0.0))
    noisy = [trajectories.run(s, mx.optimizer.SGD(learning_rate=0.05), steps=60,
                              start=(-2.0, 0.0), noise=0.5, seed=3) for _ in range(2)]
    np.testing.assert_array_equal(noisy[0].points, noisy[1].points)
    assert abs(gd.points[-1, 1]) == 0.0                      # exactly on the ridge: stuck
    assert abs(noisy[0].points[-1, 1]) > 0.5                 # noise pushes it down a side


def test_caller_optimizer_is_not_mutated():
    opt = mx.optimizer.Adam(learning_rate=0.1)
    first = trajectories.run("rosenbrock", opt, steps=5)
    second = trajectories.run("rosenbrock", opt, steps=5)
    np.testing.assert_array_equal(first.points, second.points)
    assert opt.num_update == 0


def test_padded_repeats_the_last_point():
    path = trajectories.run("ill_conditioned", mx.optimizer.SGD(learning_rate=1.5), steps=100)
    pts = trajectories.padded(path, 101)
    assert pts.shape == (101, 2) and path.diverged
    np.testing.assert_array_equal(pts[-1], path.points[-1])


def test_bad_input_says_what_to_do():
    with pytest.raises(ValueError, match="unknown surface 'banana'.*choose one of"):
        trajectories.run("banana", mx.optimizer.SGD(), steps=3)
    with pytest.raises(ValueError, match="steps must be"):
        trajectories.run("saddle", mx.optimizer.SGD(), steps=-1)
    with pytest.raises(TypeError, match="mx.optimizer.Optimizer or a name"):
        trajectories.run("saddle", lambda w: w, steps=3)
    with pytest.raises(TypeError, match="only go with an optimizer name"):
        trajectories.run("saddle", mx.optimizer.SGD(), steps=3, momentum=0.9)
