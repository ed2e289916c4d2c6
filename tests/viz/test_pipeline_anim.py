"""The pipeline animation: frames come from the schedules, callbacks only look them up."""

import re

import pytest

from tutorial.parallel.pipeline import schedules as sch
from tutorial.viz import pipeline_anim as anim
from tutorial.viz.pipeline_plots import bars


@pytest.fixture(scope="module")
def model():
    return anim.build_model(stage_counts=(2, 3, 4), microbatch_counts=(1, 4, 8))


def shown_ticks(widget):
    return [int(re.search(r"data-tick='(\d+)'", p.value).group(1))
            for p in widget.panels.children]


def test_frames_are_the_schedules(model):
    assert len(model) == 3 * 3 * 3
    for (name, p, m), frames in model.items():
        plan = sch.schedule(name, p, m)
        assert frames.plan == plan
        assert sum(lab != "" for row in frames.labels for lab in row) == 2 * p * m
        assert frames.idle_share[-1] == pytest.approx(sch.bubble(plan))
        assert frames.held.max(axis=0).tolist() == sch.peak_held(plan)


def test_render_shows_the_tick_and_the_formula(model):
    text = anim.render(model["gpipe", 4, 8], 3)
    assert "data-tick='3'" in text and "tick 4 of 22" in text and "= 3/11" in text
    assert text.count(">F0<") == 4 and ">B" not in text        # only forwards by tick 3


def test_tick_and_play_callbacks_never_recompute(model, monkeypatch):
    widget = anim.pipeline_animation(model, stages=4, microbatches=8)
    c = widget.controls
    # it opens on the last tick, each schedule whole (its own last tick): a saved frame
    # shows the complete schedules
    assert c["tick"].max == 4 * 2 * 8 - 1 and c["tick"].value == c["play"].value == c["tick"].max
    assert shown_ticks(widget) == [4 * 2 * 8 - 1] + [2 * (8 + 4 - 1) - 1] * 2  # naive longest

    def forbidden(*args, **kwargs):
        raise AssertionError("a tick callback recomputed a schedule")

    for name in ("build_model", "build_frames"):
        monkeypatch.setattr(anim, name, forbidden)
    monkeypatch.setattr(anim.sch, "schedule", forbidden)
    monkeypatch.setattr(anim.sch, "held", forbidden)
    c["tick"].value = 10
    assert shown_ticks(widget) == [10, 10, 10]
    c["stages"].value = 2
    c["pick"].value = "1f1b"
    assert len(widget.panels.children) == 1 and c["tick"].max == 2 * (8 + 2 - 1) - 1
    assert shown_ticks(widget) == [10]


def test_unknown_settings_are_refused(model):
    with pytest.raises(ValueError, match="no frames for stages=9"):
        anim.pipeline_animation(model, stages=9)


def test_gantt_rows_from_ticks_and_from_a_replay_agree():
    plan = sch.one_f_one_b(3, 4)
    times = {t: (float(t.tick), t.tick + 1.0) for t in plan.tasks}
    assert bars(plan) == bars((plan, times))
