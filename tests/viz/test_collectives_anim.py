"""The allreduce animation: frames replay the schedules, callbacks only look them up."""

import re

import numpy as np
import pytest

from tutorial.parallel import costmodel
from tutorial.viz import allreduce_anim as anim


@pytest.fixture(scope="module")
def model():
    return anim.build_model()


def _shown_steps(widget):
    return [int(re.search(r"data-step='(\d+)'", p.value).group(1))
            for p in widget.panels.children]


def test_frames_start_with_own_values_and_end_with_the_full_sum(model):
    assert len(model) == 4 * 15
    for (algorithm, n), frames in model.items():
        assert (frames.counts[0] == 1).all() and (frames.counts[-1] == n).all()
        assert (frames.sums[-1] == n * (n + 1) // 2).all(), (algorithm, n)
        assert len(frames.captions) == frames.num_steps + 1 == frames.counts.shape[0]


def test_butterfly_frames_are_the_transcripts_example(model):
    assert model[("butterfly", 4)].sums[:, :, 0].tolist() == \
        [[1, 2, 3, 4], [3, 3, 7, 7], [10, 10, 10, 10]]


def test_clock_is_the_cost_model_of_the_same_schedule(model):
    frames = model[("ring", 8)]
    clock = anim.clocks(frames, alpha=1e-5, beta=1e-10, nbytes=64e6)
    assert clock[0] == 0 and np.all(np.diff(clock) > 0)
    assert clock[-1] == pytest.approx(costmodel.predict("ring", 8, 64e6, 1e-5, 1e-10))
    slowed = anim.clocks(frames, alpha=1e-5, beta=1e-10, nbytes=64e6, slow_node=2, slowdown=3)
    assert slowed[-1] > clock[-1]


def test_render_marks_what_changed_and_the_slow_node(model):
    frames = model[("tree", 7)]
    text = anim.render(frames, 1, np.zeros(5), slow_node=4)
    assert "data-step='1'" in text and "4 (slow)" in text
    assert text.count("box-shadow") == 2          # nodes 4 and 5 took in their children
    assert ">13</td>" in text and ">8</td>" in text


def test_step_and_play_callbacks_never_recompute(model, monkeypatch):
    widget = anim.allreduce_animation(model, nodes=7)
    c = widget.controls
    assert _shown_steps(widget) == [0, 0, 0, 0]

    def forbidden(*args, **kwargs):
        raise AssertionError("a step callback recomputed frames or clocks")

    for name in ("build_frames", "build_model", "contributions", "schedule", "clocks"):
        monkeypatch.setattr(anim, name, forbidden)
    for k in range(c["step"].max + 1):
        c["step"].value = k
        assert _shown_steps(widget) == [min(k, model[(a, 7)].num_steps) for a in anim.ALGORITHMS]


def test_clock_sliders_reprice_without_replaying(model, monkeypatch):
    widget = anim.allreduce_animation(model, nodes=5)
    c = widget.controls
    calls = []
    monkeypatch.setattr(anim, "build_frames", lambda *a: calls.append("frames"))
    real_clocks = anim.clocks
    monkeypatch.setattr(anim, "clocks", lambda *a, **k: calls.append("clock") or
                        real_clocks(*a, **k))
    c["step"].value = c["step"].max
    before = widget.panels.children[3].value
    c["latency"].value = 100.0
    assert calls == ["clock"] * 4 and widget.panels.children[3].value != before


def test_node_count_and_algorithm_pick_resize_the_step_slider(model):
    widget = anim.allreduce_animation(model, nodes=4)
    c = widget.controls
    c["step"].value = 3
    c["nodes"].value = 16
    assert c["step"].value == 0 and c["step"].max == 30 == c["play"].max
    c["pick"].value = "butterfly"
    assert c["step"].max == 4 and len(widget.panels.children) == 1
    assert "play" in c["play"]._dom_classes[0] and c["step"]._dom_classes == ("allreduce-step",)


def test_a_node_count_without_frames_is_a_clear_error(model):
    with pytest.raises(ValueError, match="nodes=1 has no frames: choose from 2 to 16"):
        anim.allreduce_animation(model, nodes=1)
