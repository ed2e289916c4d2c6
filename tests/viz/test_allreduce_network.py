"""The network view of the allreduce: its clock is the cost model's, its straggler slows
exactly its own messages, its layouts stay readable at 16 nodes, and its callbacks only
look timelines up."""

import re

import numpy as np
import pytest

from forbid import forbid
from tutorial.parallel import collectives, costmodel
from tutorial.viz import allreduce_network as view
from tutorial.viz import network_svg, topology
from tutorial.viz import network_timeline as nt

NETWORK = dict(alpha=nt.ALPHA, beta=nt.BETA, gamma=nt.GAMMA)


@pytest.fixture(scope="module")
def model():
    return nt.build_network_model()


def test_every_clock_ends_at_the_closed_form_prediction(model):
    for algorithm in costmodel.ALGORITHMS:
        for n in range(2, 17):
            for label, nbytes in nt.SIZES:
                tl = nt.lookup(model, algorithm, n, label)
                expected = costmodel.predict(algorithm, n, nbytes, **NETWORK)
                assert tl.total == pytest.approx(expected, rel=1e-12), (algorithm, n, label)


def test_each_step_lasts_what_the_cost_model_says_and_holds_its_messages(model):
    for algorithm in costmodel.ALGORITHMS:
        for n, slow in ((7, None), (16, None), (16, 5), (11, 10)):
            tl = nt.lookup(model, algorithm, n, "1 MB", slow, 4)
            plan = collectives.schedule(algorithm, n, nt.EVEN_LENGTH)
            scale = 1e6 / plan.nbytes
            expected = costmodel.step_times(plan, nt.ALPHA, nt.BETA * scale, nt.GAMMA * scale,
                                            slow, 4.0 if slow is not None else 1.0)
            np.testing.assert_allclose(np.diff(tl.step_ends), expected, rtol=1e-12)
            assert np.all(tl.start >= tl.step_ends[tl.step] - 1e-15)
            assert np.all(tl.done <= tl.step_ends[tl.step + 1] + 1e-15)
            assert np.bincount(tl.step, minlength=len(plan.steps)).tolist() == \
                [len(s.transfers) for s in plan.steps]


def _overlaps(intervals):
    intervals = sorted(intervals)
    return any(b_start < a_end - 1e-15 for (_, a_end), (b_start, _) in
               zip(intervals, intervals[1:]))


def test_a_node_sends_one_message_at_a_time_and_receives_one_at_a_time(model):
    for algorithm in costmodel.ALGORITHMS:
        tl = nt.lookup(model, algorithm, 16, "64 MB", 3, 8)
        for node in range(16):
            sent = tl.source == node
            received = tl.destination == node
            assert not _overlaps(zip(tl.start[sent], tl.arrive[sent])), (algorithm, node)
            assert not _overlaps(zip(tl.start[received], tl.done[received])), (algorithm, node)


@pytest.mark.parametrize("algorithm", costmodel.ALGORITHMS)
def test_a_straggler_slows_exactly_the_messages_it_sends_or_receives(model, algorithm):
    slow, slowdown = 5, 8.0
    fast = nt.lookup(model, algorithm, 16, "64 MB")
    slowed = nt.lookup(model, algorithm, 16, "64 MB", slow, slowdown)
    touches = (fast.source == slow) | (fast.destination == slow)
    assert touches.any()
    took, takes = fast.arrive - fast.start, slowed.arrive - slowed.start
    np.testing.assert_allclose(takes[~touches], took[~touches], rtol=1e-12)
    np.testing.assert_allclose(takes[touches] - nt.ALPHA, slowdown * (took[touches] - nt.ALPHA),
                               rtol=1e-12)
    np.testing.assert_allclose(slowed.done - slowed.arrive, fast.done - fast.arrive,
                               rtol=1e-12, atol=1e-18)      # adding is not slower
    assert slowed.total > fast.total


def test_links_are_the_pairs_the_schedule_connects(model):
    counts = {a: len(model.layouts[a, 16].links) for a in costmodel.ALGORITHMS}
    assert counts == {"ps": 15, "tree": 15, "butterfly": 32, "ring": 16}
    assert model.layouts["ring", 16].links[:2] == ((0, 1), (0, 15))


@pytest.mark.parametrize("algorithm", costmodel.ALGORITHMS)
def test_sixteen_nodes_fit_a_projector_panel_without_touching(model, algorithm):
    size, r = network_svg.PANEL, network_svg.node_radius(network_svg.PANEL)
    xy = network_svg._xy(model.layouts[algorithm, 16].positions, size)
    gaps = np.hypot(*(xy[:, None] - xy[None]).transpose(2, 0, 1))
    gaps[np.diag_indices(16)] = np.inf
    assert gaps.min() >= 2 * r + 6, f"{algorithm}: nodes {gaps.min():.0f} px apart"
    assert (xy - r >= 0).all() and (xy + r <= size).all()
    assert 4 * (size + 6) <= 1280 - 100           # four panels beside RISE's margins


def test_a_bent_link_clears_the_nodes_a_straight_one_would_cross(model):
    lay = model.layouts["butterfly", 16]
    link = lay.index()[0, 4]                # 0 and 4 lie two columns apart, 1 between them
    middle = (lay.positions[0] + lay.positions[4]) / 2
    assert np.hypot(*(middle - lay.positions[1])) < 1e-12
    peak, _ = topology.point_on_link(lay, link, 0, 0.5)
    assert np.hypot(*(peak - lay.positions[1])) > topology.CLEARANCE
    straight = lay.index()[0, 1]
    assert np.allclose(lay.controls[straight], (lay.positions[0] + lay.positions[1]) / 2)


def test_the_panel_draws_each_message_in_flight_and_marks_the_straggler(model):
    tl = nt.lookup(model, "ring", 8, "1 MB", 2, 4)
    t = (tl.step_ends[3] + tl.step_ends[4]) / 2
    moving, _ = nt.in_flight(tl, t)
    text = network_svg.panel(model.layouts["ring", 8], tl, t, 7,
                             network_svg.background(model.layouts["ring", 8]), slow_node=2)
    assert 0 < len(moving) == text.count("r='6.5'")
    assert text.count(f"stroke='{network_svg.SLOW}' stroke-width='4'") == 1
    assert text.count("stroke-dasharray") == 2     # the slow node's two ring links
    assert "data-frame='7'" in text and "step 4/14: reduce-scatter" in text


def _frames(widget):
    return {re.search(r"data-algorithm='([^']+)'", p.value).group(1):
            (int(re.search(r"data-frame='(\d+)'", p.value).group(1)),
             re.search(r"<span[^>]*>([^<]+)</span></div><svg", p.value).group(1))
            for p in widget.panels.children}


def test_one_clock_moves_all_four_and_the_fastest_finishes_first(model):
    widget = view.allreduce_network(model, nodes=16)
    time = widget.controls["time"]
    time.value = view.FRAMES // 4
    shown = _frames(widget)
    assert {frame for frame, _ in shown.values()} == {view.FRAMES // 4}
    assert shown["ring"][1].startswith("done at") and shown["ps"][1].startswith("step")
    time.value = view.FRAMES
    assert all(status.startswith("done at") for _, status in _frames(widget).values())


def test_callbacks_never_schedule_or_price(model, monkeypatch):
    widget = view.allreduce_network(model, nodes=16)
    calls = forbid(monkeypatch, *[(module, name) for module, names in (
        (costmodel, ("transfer_costs", "step_times", "predict")),
        (collectives, ("schedule", "contributions")),
        (nt, ("timeline", "build_network_model", "held_shares")),
        (topology, ("layout",))) for name in names])
    c = widget.controls
    before = [p.value for p in widget.panels.children]
    for control, value in ((c["time"], 30), (c["nodes"], 9), (c["size"], "4 KB"),
                           (c["slow"], 3), (c["slowdown"], 8.0), (c["time"], 90),
                           (c["pick"], "ring"), (c["nodes"], 16), (c["pick"], view.ALL)):
        control.value = value
    assert calls == []
    after = [p.value for p in widget.panels.children]
    assert len(after) == 4 and after != before
    assert "data-frame='90'" in after[0]


def test_it_opens_with_every_algorithm_done(model):
    """A saved or exported frame shows the end of the allreduce, not t = 0 before any
    message (Play at the end starts again from 0)."""
    widget = view.allreduce_network(model, nodes=16)
    controls = widget.controls
    assert controls["time"].value == controls["play"].value == view.FRAMES
    assert all(status.startswith("done at") for _, status in _frames(widget).values())


def test_every_text_on_the_view_is_projector_sized(model):
    widget = view.allreduce_network(model, nodes=16)
    shown = "".join(p.value for p in widget.panels.children) + view.legend(model)
    sizes = [int(px) for px in re.findall(r"font-size='(\d+)'", shown) +
             re.findall(r"font:(?:bold )?(\d+)px", shown)]
    assert len(sizes) > 4 * 16 and min(sizes) >= 18
