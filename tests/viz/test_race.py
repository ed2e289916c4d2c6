"""The race widget's model (grid, frames) and its view (callbacks only look up)."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.optim import trajectories
from tutorial.viz import race as race_mod
from tutorial.viz.race import Racer, frame, race, race_model

RACERS = (Racer("GD", "sgd"), Racer("Heavy ball", "sgd", momentum_key="momentum"))


class CountingRunner:
    def __init__(self):
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return trajectories.run(*args, **kwargs)


@pytest.fixture(scope="module")
def built():
    runner = CountingRunner()
    model = race_model("ill_conditioned", RACERS, lrs=(0.1, 0.5, 1.5), momentums=(0.0, 0.9),
                       steps=30, make=mx.optimizer.create, runner=runner)
    return model, runner


def test_grid_holds_every_cell_and_each_path_is_the_runner_path(built):
    model, runner = built
    assert set(model.paths) == {(i, j) for i in range(3) for j in range(2)}
    assert runner.calls == model.calls == 3 + 3 * 2    # GD once per lr
    for (i, j), paths in model.paths.items():
        assert paths.shape == (2, 31, 2)
        heavy = trajectories.run("ill_conditioned", mx.optimizer.SGD(
            learning_rate=model.lrs[i], momentum=model.momentums[j]), 30)
        np.testing.assert_array_equal(paths[1], trajectories.padded(heavy, 31))


def test_momentum_zero_equals_gd_and_divergence_is_flagged(built):
    model, _ = built
    np.testing.assert_allclose(model.paths[1, 0][0], model.paths[1, 0][1], atol=1e-6)
    assert model.diverged[2, 0] == (True, True)         # lr 1.5 > 2 / curvature 2
    assert model.diverged[1, 0] == (False, False)
    assert np.isnan(model.final_loss[2, 0][0]) and model.final_loss[1, 0][0] < 1.0


def test_frame_is_a_prefix_of_the_path(built):
    model, _ = built
    f = frame(model, lr=0.5, momentum=0.9, step=7)
    assert f.shape == (2, 8, 2)
    np.testing.assert_array_equal(f, model.paths[1, 1][:, :8])
    with pytest.raises(ValueError, match="lr=0.3 is not on the race grid"):
        frame(model, lr=0.3, momentum=0.9, step=7)
    with pytest.raises(ValueError, match="step must lie in 0..30"):
        frame(model, lr=0.5, momentum=0.9, step=31)


def test_callbacks_draw_without_running_the_optimizer(built, monkeypatch):
    model, runner = built
    before = runner.calls

    def forbidden(*args, **kwargs):
        raise AssertionError("a callback ran an optimizer")

    monkeypatch.setattr(trajectories, "run", forbidden)
    monkeypatch.setattr(race_mod.trajectories, "run", forbidden)
    widget = race(model)
    picture = widget.picture
    contours_sent = []
    widget.contours.observe(contours_sent.append, "value")
    step_slider = widget.children[2].children[1]
    lr_slider, mom_slider = widget.children[3].children
    drawn = picture.value
    step_slider.value = 3
    assert picture.value != drawn and picture.value.count("<circle") == 2
    lr_slider.value, mom_slider.value = 0.1, 0.9
    step_slider.value = 30
    assert runner.calls == before
    assert contours_sent == []            # the contours went to the browser once, at the start
    assert "<circle" not in widget.contours.value and "stroke='#bbb'" in widget.contours.value
    assert "stroke='#bbb'" not in picture.value     # a frame carries the paths only


def test_view_draws_the_stored_points(built):
    model, _ = built
    widget = race(model)
    canvas = race_mod._Canvas(model.surface)
    step_slider = widget.children[2].children[1]
    step_slider.value = 5
    lr_slider, mom_slider = widget.children[3].children
    i, j = model.lrs.index(lr_slider.value), model.momentums.index(mom_slider.value)
    want = canvas.paths_svg(model, model.paths[i, j][:, :6])
    assert widget.picture.value == want


def test_bad_grid_is_refused():
    with pytest.raises(ValueError, match="at least one racer"):
        race_model("saddle", (), lrs=(0.1,), momentums=(0.0,), steps=3, make=mx.optimizer.create)
