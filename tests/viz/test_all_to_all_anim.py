"""The all-to-all animation: frames come from the schedule, the slider only looks them up."""

import pytest

from tutorial.experts.all_to_all import bytes_sent, schedule
from tutorial.viz import all_to_all_anim as anim

COUNTS = [[2, 1, 1, 3], [1, 1, 2, 0], [0, 4, 1, 1], [2, 0, 1, 2]]


def test_frames_follow_the_schedule():
    plan = schedule(COUNTS, 16)
    f = anim.build_frames(plan)
    assert len(f.held) == len(plan.steps) + 1 == 4
    assert f.sent[-1] == sum(bytes_sent(plan)) == 16 * (sum(map(sum, COUNTS)) - 2 - 1 - 1 - 2)
    # at the end every node holds every non-empty block sent to it
    for j in range(4):
        assert f.held[-1][j] == tuple(i for i in range(4) if COUNTS[i][j])
    # step s moves node i's block for node (i + s) mod 4, when it is not empty
    assert [(s, d) for s, d, _ in f.moving[2]] == [(0, 2)]


def test_render_names_the_step_and_its_messages():
    f = anim.build_frames(schedule(COUNTS, 16))
    text = anim.render(f, 3)
    assert "data-step='3'" in text and "step 3 of 3" in text
    assert "0&rarr;3, 1&rarr;0, 2&rarr;1, 3&rarr;2" in text
    assert "each node copies the block it keeps" in anim.render(f, 0)


def test_the_slider_never_recomputes(monkeypatch):
    widget = anim.all_to_all_animation(COUNTS, 16)
    assert widget.controls["step"].value == 3                 # opens on the finished exchange

    def forbidden(*args, **kwargs):
        raise AssertionError("a callback recomputed the schedule")

    for name in ("schedule", "held", "build_frames"):
        monkeypatch.setattr(anim, name, forbidden)
    widget.controls["step"].value = 1
    assert "data-step='1'" in widget.view.value


def test_bad_counts_are_refused_with_the_schedules_message():
    with pytest.raises(ValueError, match="square"):
        anim.all_to_all_animation([[1, 2], [3]])


def test_a_node_is_drawn_at_most_max_cells_wide_on_each_side():
    heavy = [[16, 17, 18, 13], [18, 17, 13, 16], [19, 16, 12, 17], [11, 10, 18, 16]]
    text = anim.render(anim.build_frames(schedule(heavy, 128)), 3)
    for row in text.split("<tr>")[1:]:
        sides = row.split("&rarr;")
        assert len(sides) == 2
        for side in sides:
            assert side.count("<span") <= anim.MAX_CELLS + 4   # rounding up, one block each
