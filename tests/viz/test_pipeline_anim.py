"""The pipeline animation: frames come from the schedules, callbacks only look them up."""

import re

import pytest

from tutorial.parallel.pipeline import schedules as sch
from tutorial.viz import pipeline_anim as anim
from tutorial.viz.pipeline_plots import bars


@pytest.fixture(scope="module")
def model():
    return anim.build_model(stage_counts=(2, 3, 4), microbatch_counts=(1, 4, 6, 8, 16))


def shown_ticks(widget):
    return [int(re.search(r"data-tick='(\d+)'", p.value).group(1))
            for p in widget.panels.children]


def test_frames_are_the_schedules(model):
    assert len(model) == 3 * 3 * 5
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
    # shows the complete schedules. The slider counts from 1, as the captions ("tick 11 of
    # 22") do; data-tick is the frame looked up, from 0.
    assert c["tick"].min == 1 and c["tick"].max == 4 * 2 * 8
    assert c["tick"].value == c["play"].value == c["tick"].max
    assert shown_ticks(widget) == [4 * 2 * 8 - 1] + [2 * (8 + 4 - 1) - 1] * 2  # naive longest

    def forbidden(*args, **kwargs):
        raise AssertionError("a tick callback recomputed a schedule")

    for name in ("build_model", "build_frames"):
        monkeypatch.setattr(anim, name, forbidden)
    monkeypatch.setattr(anim.sch, "schedule", forbidden)
    monkeypatch.setattr(anim.sch, "held", forbidden)
    c["tick"].value = 11
    assert shown_ticks(widget) == [10, 10, 10]
    assert all("tick 11 of" in p.value for p in widget.panels.children)
    c["stages"].value = 2
    c["pick"].value = "1f1b"
    assert len(widget.panels.children) == 1 and c["tick"].max == 2 * (8 + 2 - 1)
    assert shown_ticks(widget) == [10]


def font_sizes(text):
    return [int(px) for px in re.findall(r"font(?:-size)?:\s*(\d+)px", text)]


def column_widths(text):
    return {int(px) for px in re.findall(r"min-width:(\d+)px", text)}


def test_the_deck_default_shows_every_text_and_label_at_projector_size(model):
    widget = anim.pipeline_animation(model, stages=3, microbatches=6)    # the deck's cell
    panels = [p.value for p in widget.panels.children]
    shown = panels + [widget.legend.value]                              # and the legend
    assert all(font_sizes(text) and min(font_sizes(text)) >= anim.TEXT_PX for text in shown)
    assert all(">F0<" in text and ">B5<" in text for text in panels)    # labels drawn
    # naive (36 ticks) and the others (16) share one column width: a tick lines up
    assert [column_widths(text) for text in panels] == [{anim.CELL_PX}] * 3
    assert anim.grid_sizes(36, 2) == (anim.CELL_PX, anim.TEXT_PX)


def test_a_wider_grid_scales_down_then_keeps_only_colours(model):
    widget = anim.pipeline_animation(model, stages=4, microbatches=8)    # naive: 64 ticks
    panels = [p.value for p in widget.panels.children]
    cell, label_px = anim.grid_sizes(64, 2)
    assert cell * 64 <= anim.GRID_PX and anim.MIN_LABEL_PX <= label_px < anim.TEXT_PX
    assert [column_widths(text) for text in panels] == [{cell}] * 3
    assert all(">F0<" in text and f"font:{label_px}px" in text for text in panels)
    c = widget.controls
    c["pick"].value = "gpipe"                                           # alone: 22 ticks
    assert ">F0<" in widget.panels.children[0].value
    assert column_widths(widget.panels.children[0].value) == {anim.CELL_PX}
    assert anim.grid_sizes(38, 3)[1] < anim.TEXT_PX                     # 'B15' at m = 16
    c["pick"].value, c["microbatches"].value = anim.ALL, 16              # naive: 128 ticks
    panels = [p.value for p in widget.panels.children]
    assert anim.grid_sizes(128, 3)[1] == 0
    assert not any(">F0<" in text for text in panels)                   # no tiny labels...
    assert all("title='F0, stage 0, tick 1'" in text for text in panels)  # ...a tooltip
    assert all(min(font_sizes(text)) >= anim.TEXT_PX for text in panels)


def test_unknown_settings_are_refused(model):
    with pytest.raises(ValueError, match="no frames for stages=9"):
        anim.pipeline_animation(model, stages=9)


def test_gantt_rows_from_ticks_and_from_a_replay_agree():
    plan = sch.one_f_one_b(3, 4)
    times = {t: (float(t.tick), t.tick + 1.0) for t in plan.tasks}
    assert bars(plan) == bars((plan, times))
