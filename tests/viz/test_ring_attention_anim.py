"""The ring attention animation: frames come from the schedule, callbacks only look them up."""

import re

import numpy as np
import pytest

from tutorial.sequence import ring_schedule as rs
from tutorial.sequence.placement import causal_work
from tutorial.viz import ring_attention_anim as anim


@pytest.fixture(scope="module")
def model():
    return anim.build_model(device_counts=(2, 3, 4, 8))


def test_every_pair_is_computed_once_unless_masked(model):
    for (k, placement, causal), f in model.items():
        seq = f.plan.seq_len
        expected_masked = np.triu(np.ones((seq, seq), bool), 1) if causal else \
            np.zeros((seq, seq), bool)
        assert ((f.step_of < 0) == expected_masked).all(), (k, placement, causal)
        assert f.filled[-1].tolist() == [1.0] * k          # every softmax whole at the end
        # the pairs device d computes at step s are the schedule's count
        for s, step in enumerate(f.plan.steps):
            for work in step:
                rows = f.device_of == work.device
                assert (f.step_of[rows] == s).sum() == work.pairs


def test_a_pair_is_computed_when_its_keys_reach_the_querys_device(model):
    f = model[4, "plain", False]
    # device d holds block (d - s) mod 4 at step s: query 0 (device 0) meets the keys of
    # device 3 (positions 12-15) at step 1, those of device 1 (4-7) at step 3
    assert f.step_of[0, 12:16].tolist() == [1] * 4 and f.step_of[0, 4:8].tolist() == [3] * 4


def test_zigzag_balances_the_causal_work_and_plain_does_not(model):
    plain, zigzag = model[4, "plain", True], model[4, "zigzag", True]
    assert rs.critical_path(zigzag.plan) < rs.critical_path(plain.plan)
    assert zigzag.busiest[-1] == rs.critical_path(zigzag.plan)
    assert len(set(causal_work(zigzag.plan.held))) == 1


def test_render_shows_the_step_and_the_state(model):
    text = anim.render(model[4, "plain", True], 1)
    assert "data-step='1'" in text and "step 2 of 4" in text
    assert text.count("device 3") >= 1 and "holds K,V of 2 (unmasked)" in text
    assert "holds K,V of 3 (fully masked: idle)" in text             # device 0 skips device 3's keys
    assert f"sent so far {int(model[4, 'plain', True].sent[1])} B" in text


def test_step_and_play_callbacks_never_recompute(model, monkeypatch):
    widget = anim.ring_animation(model, devices=4)
    c = widget.controls
    assert c["step"].value == c["play"].value == 4                # opens on the whole ring

    def forbidden(*args, **kwargs):
        raise AssertionError("a callback recomputed a schedule")

    for name in ("build_model", "build_frames"):
        monkeypatch.setattr(anim, name, forbidden)
    monkeypatch.setattr(anim.rs, "schedule", forbidden)
    c["step"].value = 2
    assert re.search(r"data-step='1'", widget.view.value)
    c["devices"].value = 8
    assert c["step"].max == 8 and "of 8" in widget.view.value
    c["placement"].value = "zigzag"
    c["causal"].value = False
    assert "busiest / mean pairs 1.00" in widget.view.value


def test_settings_without_frames_are_refused(model):
    with pytest.raises(ValueError, match="choose devices in 2..8"):
        anim.ring_animation(model, devices=5)
    with pytest.raises(ValueError, match="placement"):
        anim.ring_animation(model, placement="spiral")
