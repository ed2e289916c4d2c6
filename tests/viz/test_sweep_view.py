"""The deck's large-batch sweep widget: it draws the points it was given, fits once, and
its Play and target toggle only look points up (nothing trains or fits in a callback).

The points are made up from a known curve S(B) = S_min (1 + B_crit / B), so the fit and
the readout have exact answers; the deck's own run trains them (notebook 08 checks them).
"""

import re

import pytest

from forbid import forbid
from tutorial.largebatch import critical_batch, experiments, sweep
from tutorial.largebatch.sweep import SweepPoint
from tutorial.viz import sweep_view as view

BATCHES = (16, 32, 64, 128, 256, 512, 1024)
CURVES = {0.93: (32, 32), 0.95: (16, 64)}      # target -> (S_min, B_crit): whole steps


def exact_points(missing=()):
    points = []
    for b in BATCHES:
        steps = {t: None if (t, b) in missing else s_min + s_min * b_crit // b
                 for t, (s_min, b_crit) in CURVES.items()}
        points.append(SweepPoint(b, steps, {t: 0.1 for t in CURVES}, False, ()))
    return points[::-1]                                    # the model sorts them


@pytest.fixture
def model():
    return view.sweep_model(exact_points(), targets=tuple(CURVES))


def test_the_fit_recovers_the_curve_behind_the_points(model):
    assert [p.batch_size for p in model.points] == list(BATCHES)
    for t, (s_min, b_crit) in CURVES.items():
        assert model.fits[t].s_min == pytest.approx(s_min)
        assert model.fits[t].b_crit == pytest.approx(b_crit)


def test_each_frame_draws_the_points_shown_and_the_fit_only_at_the_end(model):
    for shown in range(1, len(BATCHES) + 1):
        svg = view.sweep_svg(model, 0.95, shown)
        assert svg.count("<circle") == shown
        assert ("B_crit &#8776; 64" in svg) == (shown == len(BATCHES))
    assert view.sweep_svg(model, 0.95, 3).count("stroke='black'") == 1     # the newest


def test_the_readout_compares_with_perfect_scaling(model):
    text = view.readout_html(model, 0.93, 2)
    assert "<b>batch 32</b>: 64 steps to 93% (best lr 0.1), 2,048 examples." in text
    assert "From batch 16: 2&times; the batch, 1.50&times; fewer steps" in text
    assert "Fit:" not in text
    assert f"B{view.SUB('crit')} = 32" in view.readout_html(model, 0.93, len(BATCHES))


def test_a_target_a_batch_size_never_reached_is_said_so():
    model = view.sweep_model(exact_points(missing={(0.95, 16)}), targets=tuple(CURVES))
    assert "did not reach 95%" in view.readout_html(model, 0.95, 1)
    assert view.sweep_svg(model, 0.95, 1).count("<circle") == 0


def test_a_sweep_of_one_batch_size_is_refused():
    with pytest.raises(ValueError, match="at least two batch sizes"):
        view.sweep_model(exact_points()[:1], targets=tuple(CURVES))


def test_controls_only_look_points_up(model, monkeypatch):
    widget = view.sweep_view(model)
    calls = forbid(monkeypatch, (sweep, "batch_size_sweep"), (experiments, "fit_targets"),
                   (critical_batch, "fit_critical_batch"), (view, "sweep_model"))
    c = widget.controls
    before = widget.picture.value
    for control, value in ((c["shown"], 2), (c["target"], 0.93), (c["shown"], 7)):
        control.value = value
    assert calls == []
    assert widget.picture.value != before
    assert len(re.findall("<circle", widget.picture.value)) == 7
    assert "B_crit &#8776; 32" in widget.picture.value


def test_every_text_is_projector_sized_and_close_batch_sizes_keep_both_ticks():
    """The deck's sweep ends at the whole training set, 1438, beside 1024: both labels
    show, apart, at the 18 px a projector's back row reads."""
    points = [SweepPoint(b, {0.95: 10 + 10 * 160 // b}, {0.95: 0.1}, False, ())
              for b in (16, 64, 256, 1024, 1438)]
    svg = view.sweep_svg(view.sweep_model(points, targets=(0.95,)), 0.95, 5)
    assert min(int(size) for size in re.findall(r"font-size='(\d+)'", svg)) >= 18
    ticks = dict((label, float(x)) for x, label in
                 re.findall(r"<text x='([\d.]+)' y='[\d.]+' font-size='\d+' "
                            r"text-anchor='middle'>(\d+)</text>", svg))
    assert ticks.keys() == {"16", "64", "256", "1024", "1438"}
    room = 0.55 * 18 * 4                     # the width of four digits at 18 px
    assert ticks["1438"] - ticks["1024"] >= room + 4
    assert ticks["1438"] + room / 2 <= view.WIDTH
