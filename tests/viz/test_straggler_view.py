"""The deck's straggler slider: its schedules are the simulation's own, its numbers follow
from them, and moving the slider only looks runs up (nothing is simulated in a callback)."""

import re

import numpy as np
import pytest

from forbid import forbid
from tutorial.parallel import async_sgd
from tutorial.viz import straggler_model as sm
from tutorial.viz import straggler_view as sv


@pytest.fixture(scope="module")
def model():
    return sm.build_straggler_model(slowdowns=(1, 2, 4, 8), updates=400)


def test_one_sync_round_lasts_as_long_as_the_straggler(model):
    for s, case in model.cases.items():
        np.testing.assert_allclose(np.diff(case.sync.time), s)
        assert len(case.asyn.time) == case.sync.gradients       # the same gradients applied


def test_sync_bars_compute_then_wait_for_the_round_end(model):
    case = model.cases[4]
    bars = sm.sync_bars(case, horizon=8)
    assert len([b for b in bars if not b[3]]) == 2 * 8            # two rounds, eight workers
    waits = [b for b in bars if b[3]]
    assert len(waits) == 2 * 7 and all(end - start == 3.0 for _, start, end, _ in waits)
    assert not [b for b in bars if b[0] == 7 and b[3]]            # the straggler never waits


def test_async_bars_tile_each_workers_time_without_gaps_or_overlaps(model):
    case = model.cases[8]
    bars = sm.async_bars(case, horizon=40)
    for k in range(8):
        mine = [(s, e) for w, s, e, _ in bars if w == k]
        assert mine[0][0] == 0.0
        assert all(a[1] == b[0] for a, b in zip(mine, mine[1:]))
        np.testing.assert_allclose([e - s for s, e in mine], case.durations[k])
    stale = [tau for w, _, _, tau in bars if w == 7]
    assert stale[1:] and all(tau == 7 * 8 for tau in stale[1:])   # 7 others x 8 pushes each


def test_the_summary_is_what_the_traces_say(model):
    for s in model.cases:
        summary = sm.summarize(model, s)
        assert summary.idle == pytest.approx(1 - (7 + s) / (8 * s))
        case = model.cases[s]
        assert summary.sync_time == case.sync.time_to_loss(model.target)
    slow = [sm.summarize(model, s) for s in (1, 8)]
    assert slow[1].speedup > 4 * slow[0].speedup       # async gains most under a straggler
    assert slow[1].straggler_staleness > 5 * slow[1].others_staleness


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="slowdowns\\[0\\]"):
        sm.build_straggler_model(slowdowns=(0.5,), updates=80)
    with pytest.raises(ValueError, match="workers must be a whole number >= 2"):
        sm.build_straggler_model(workers=1, updates=80)
    with pytest.raises(ValueError, match="not a slowdown of the model"):
        sv.straggler_view(sm.build_straggler_model(slowdowns=(1, 2), updates=80), value=3)


def test_the_slider_redraws_from_stored_runs_only(model, monkeypatch):
    view = sv.straggler_view(model, value=1)
    calls = forbid(monkeypatch, (async_sgd, "simulate"), (sm, "simulate"),
                   (sm, "build_straggler_model"))
    before = (view.readout.value, view.schedules.value, view.curves.value)
    view.slider.value = 8
    after = (view.readout.value, view.schedules.value, view.curves.value)
    assert calls == []
    assert all(a != b for a, b in zip(before, after))
    assert "straggler 8× slower" in after[0] and "sync: t = 168" not in after[0]
    assert re.search(r"async 8\.0&times; sooner", after[0]), after[0]


def test_the_view_fits_a_projector_and_reads_from_the_back(model):
    view = sv.straggler_view(model)
    svgs = [v.value for v in (view.schedules, view.curves)]
    widths = [int(re.search(r"<svg width='(\d+)'", v).group(1)) for v in svgs]
    heights = [int(re.search(r"<svg [^>]*height='(\d+)'", v).group(1)) for v in svgs]
    assert sum(widths) + 20 <= 1270                     # side by side on a 1280 px slide
    assert max(heights) <= 720 - 250 - 3 * 26           # under the prose, slider, readout
    for v in svgs:                                      # every label inherits the svg's size
        assert re.match(r"<svg [^>]*font-size='(\d+)'", v)
    sizes = [int(px) for v in svgs + [view.readout.value]
             for px in re.findall(r"font-size='(\d+)'|font:(\d+)px", v) for px in px if px]
    assert sizes and min(sizes) >= 18, sizes
