import numpy as np
import pytest

from tutorial.surfaces import SURFACES


@pytest.mark.parametrize("name", sorted(SURFACES))
def test_gradient_matches_finite_differences(name):
    s = SURFACES[name]
    rng = np.random.default_rng(0)
    x0, x1, y0, y1 = s.window
    for x, y in zip(rng.uniform(x0, x1, 20), rng.uniform(y0, y1, 20)):
        h = 1e-6
        gx = (s.value(x + h, y) - s.value(x - h, y)) / (2 * h)
        gy = (s.value(x, y + h) - s.value(x, y - h)) / (2 * h)
        np.testing.assert_allclose(s.grad(x, y), (gx, gy), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(SURFACES))
def test_listed_minima_are_stationary_and_lower_than_the_start(name):
    s = SURFACES[name]
    for mx_, my in s.minima:
        assert np.hypot(*s.grad(mx_, my)) < 1e-3, (mx_, my)
        assert s.value(mx_, my) < s.value(*s.start)


def test_sharp_minimum_is_sharper_and_flat_one_deeper():
    s = SURFACES["sharp_flat"]
    def curvature(x, y, h=1e-3):
        return (s.value(x + h, y) - 2 * s.value(x, y) + s.value(x - h, y)) / h ** 2
    assert curvature(-1, 0) > 10 * curvature(2, 0)
    assert s.value(2, 0) < s.value(-1, 0)
