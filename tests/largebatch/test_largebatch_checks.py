"""The issue's checks with slack, driving the notebook's own experiments at fast-mode size.

Each check is a claim notebook 08_large_batch makes from its measurements; if one fails,
find out why before changing it (the notebook says what each does and does not show).
"""

import pytest

from tutorial.largebatch import experiments as ex
from tutorial.largebatch.noise_scale import noise_scale_along_training
from tutorial.largebatch.recipes import compare_recipes
from tutorial.largebatch.sweep import batch_size_sweep

FAST = {"TUTORIAL_FAST": "1"}


@pytest.fixture(scope="module")
def digits():
    return ex.digits()


def test_small_batch_needs_at_least_3x_the_steps_of_full_batch_at_95(digits):
    small, full = batch_size_sweep(digits, [16, digits.n_train], ex.SGD_LRS, targets=(0.95,))
    assert not small.at_grid_edge and not full.at_grid_edge
    assert small.steps[0.95] >= 3 * full.steps[0.95], (small.steps, full.steps)


def test_linear_scaling_from_batch_16_diverges_at_1024(digits):
    size = ex.sizes(FAST)
    runs = {r.rule: r for r in compare_recipes(digits, [1024], ex.BASE_LR, ex.BASE_BATCH,
                                               size["warmup_steps"], size["recipe_steps"])}
    assert runs["linear"].peak_lr == pytest.approx(1.6)
    assert runs["linear"].diverged
    assert not runs["fixed"].diverged      # the same model trains at the unscaled rate
    # 1.6 is at the edge of stability: which of the two warmups survives the ramp depends
    # on the seed (notebook 08, section 4), but under seeds 0-3 at least one trains
    assert not (runs["warmup"].diverged and runs["warmup_corrected"].diverged)


def test_lars_beats_sgd_at_full_batch_on_raw_pixels(digits):
    raw = {"raw 0..16": ex.input_scales(digits)["raw 0..16"]}
    result = ex.full_batch_comparison(raw, targets=(0.95,))
    sgd, lars = result[("raw 0..16", "momentum")], result[("raw 0..16", "lars")]
    # under some seeds no SGD rate of the grid reaches 95% on raw pixels: that counts as slower
    assert lars.steps[0.95] < (sgd.steps[0.95] or float("inf")), (lars.steps, sgd.steps)


def test_noise_scale_grows_after_the_first_steps(digits):
    series = dict(noise_scale_along_training(digits, ex.NOISE_LR, ex.NOISE_BATCH,
                                             ex.sizes(FAST)["noise_steps"]))
    early = max(series[0].b_simple, series[5].b_simple)
    assert series[200].b_simple >= 2 * early, {s: ns.b_simple for s, ns in series.items()}
