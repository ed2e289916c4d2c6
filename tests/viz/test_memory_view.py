"""The deck's memory demo: its bars are tutorial.memory's counts (checked against Megatron's
real shards, the recomputing executor's ledger, mixed precision's byte count and a real
ZeRO-1 run), and its controls only look settings up."""

import re
import threading

import mxnet as mx
import numpy as np
import pytest

from forbid import forbid
from tutorial.devices import virtual_devices
from tutorial.memory import layers, recompute, tensor_parallel
from tutorial.memory.footprint import activation_floats, footprint, layer_sizes
from tutorial.memory.ledger import nbytes
from tutorial.memory.mixed_precision import train_bytes
from tutorial.viz import memory_model as mm
from tutorial.viz import memory_run as mr
from tutorial.viz import memory_view as mv

WIDTHS = (64, 16, 16, 16, 16, 10)           # five layers: pairs (0, 1), (2, 3), one whole
BATCH = 8
WAIT_S = 60


@pytest.fixture(scope="module")
def model():
    return mm.build_memory_model(WIDTHS, BATCH, devices=(1, 2, 4), tensor=(1, 2, 4))


def _net(widths, seed=0):
    mx.random.seed(seed)
    net = layers.mlp(widths, prefix="reference_")
    net.initialize()
    return net


def test_without_tensor_parallelism_the_bars_are_the_footprint_of_the_whole_net(model):
    net = _net(WIDTHS)
    for k in (1, 2, 4):
        counted = [footprint(net, (WIDTHS[0],), BATCH, k, s, "adam")[0] for s in range(4)]
        assert model.settings[k, 1, False, "float32"].stages == tuple(counted)
        assert model.zero1[k] == tuple(footprint(net, (WIDTHS[0],), BATCH, k, 1, "adam"))


def test_a_tensor_parallel_device_holds_megatrons_shards_and_the_whole_last_layer(model):
    params = layers.from_gluon(_net(WIDTHS))
    for t in (2, 4):
        held = 0
        for (W1, b1), (W2, b2) in (params[0:2], params[2:4]):
            held += nbytes(tensor_parallel.shard(W1, b1, W2, b2, [mx.cpu()] * t)[0])
        held += sum(a.nbytes for a in params[4])
        f = model.settings[1, t, False, "float32"].stages[0]
        assert f.weights == f.gradients == held
        assert f.optimizer_state == 2 * held                       # Adam: two moments


def test_recomputation_holds_what_the_recomputing_executor_holds():
    params = [(mx.nd.array(w), mx.nd.array(b)) for w, b in layers.from_gluon(_net(WIDTHS))]
    X = np.random.default_rng(0).normal(size=(BATCH, WIDTHS[0])).astype(np.float32)
    y = np.arange(BATCH) % WIDTHS[-1]
    for count in range(1, len(params) + 1):
        plan = recompute.segments(len(params), count)
        _, _, ledger = recompute.gradients(params, X, y, plan)
        scores = WIDTHS[-1]                     # the executor's ledger leaves them out
        assert ledger.peak_by_kind(0)["activations"] == 4 * BATCH * (mm.held_floats(WIDTHS, plan) - scores)
    one_per_layer = recompute.segments(len(params), len(params))
    assert mm.held_floats(WIDTHS, one_per_layer) == activation_floats(_net(WIDTHS), (WIDTHS[0],))


def test_recomputation_and_tensor_parallelism_send_a_recomputed_forward_again(model):
    # pairs (0, 1) and (2, 3) send their outputs (16 each) forward; pair 1 its input's
    # gradient (16) back: 48 numbers, x 2(T-1)/T = 1 at T = 2, x 4 B, x 4 rows at K = 2.
    assert mm.tensor_sent(WIDTHS, 4, 2) == 48 * 4 * 4
    assert model.plan == ((0, 3), (3, 5))       # √5 segments; each recomputes one pair
    assert mm.tensor_sent(WIDTHS, 4, 2, model.plan) == (48 + 32) * 4 * 4
    assert model.settings[2, 2, True, "float32"].tensor_sent == (48 + 32) * 4 * 4
    assert model.settings[2, 1, True, "float32"].tensor_sent == 0


def test_recomputation_changes_only_the_activations_and_tensor_parallel_bytes(model):
    for k in (1, 2, 4):
        plain = model.settings[k, 1, False, "float32"].stages
        again = model.settings[k, 1, True, "float32"].stages
        assert [f[:3] + (f.sent,) for f in plain] == [f[:3] + (f.sent,) for f in again]
        assert all(a.activations < p.activations for p, a in zip(plain, again))


def test_mixed_precision_is_two_plus_two_plus_twelve_bytes_and_half_the_messages(model):
    net = _net(WIDTHS)
    params = sum(s for layer in layer_sizes(net) for s in layer)
    f = model.settings[1, 1, False, "mixed"].stages[0]
    assert (f.weights, f.gradients, f.optimizer_state) == (2 * params, 2 * params, 12 * params)
    assert mm.per_parameter(model, (1, 1, False, "mixed")) == 16.0
    assert mm.per_parameter(model, (1, 1, False, "float32")) == 16.0
    sizes = [s for layer in layer_sizes(net) for s in layer]
    for k in (2, 4):
        mixed = model.settings[k, 1, False, "mixed"].stages[0]
        assert mixed.sent == train_bytes(sizes, k, "float16")     # its own count of the ring
        full = model.settings[k, 1, False, "float32"].stages
        half = model.settings[k, 1, False, "mixed"].stages
        assert all(h.activations * 2 == f.activations for f, h in zip(full, half))


def test_zero_shrinks_the_state_and_stage_3_sends_half_again(model):
    stages = model.settings[4, 1, False, "float32"].stages
    assert stages[1].optimizer_state < stages[0].optimizer_state / 3
    assert stages[0].sent == stages[1].sent == stages[2].sent
    assert stages[3].sent == pytest.approx(1.5 * stages[0].sent, rel=0.02)


def test_a_real_zero1_run_holds_and_sends_the_counted_bytes(model):
    for k in (2, 4):
        runs = list(mr.zero1_reports(WIDTHS, BATCH, virtual_devices(k), threading.Event(),
                                     steps=2))
        assert [r.step for r in runs] == [1, 2]
        assert all(r.equal(model.zero1[k]) for r in runs)
        assert "ledger = count on every device (kB): True" in mr.compare_html(
            runs[-1], model.zero1[k])
    wrong = runs[-1]._replace(devices=(runs[-1].devices[0]._replace(sent=1),)
                              + runs[-1].devices[1:])
    assert ": False" in mr.compare_html(wrong, model.zero1[4])
    last, counted = runs[-1], model.zero1[4]
    shown = {tuple(f"{n / 1e3:,.1f}" for n in f) for f in last.devices}    # rows as read
    assert mr.compare_html(last, counted).count("<tr>") == 1 + len(shown)
    even = mr.compare_html(last._replace(devices=last.devices[:1] * 4), counted[:1] * 4)
    assert even.count("<tr>") == 2 and ">0–3</td>" in even          # one row for 4 devices
    uneven = mr.compare_html(last._replace(devices=(last.devices[1],) + last.devices[:1] * 3),
                             counted[:1] * 4)
    assert uneven.count("<tr>") == 3 and ">0</td>" in uneven and ">1–3</td>" in uneven


def test_the_controls_look_settings_up_and_never_count(model, monkeypatch):
    view = mv.memory_view(model, devices=1)
    calls = forbid(monkeypatch, (mm, "footprint"), (mv, "axis_for"), (mv, "largest"),
                   (mm, "build_memory_model"),
                   (mm, "held_floats"), (mm, "tensor_sent"), (mm, "in_precision"),
                   (mm.tensor_parallel, "bytes_per_step"), (mm.recompute, "sqrt_segments"))
    seen = {view.chart.value}
    for name, value in (("devices", 4), ("tensor", 2), ("recompute", True),
                        ("precision", "mixed")):
        view.controls[name].value = value
        seen.add(view.chart.value)
    assert calls == []
    assert len(seen) == 5                       # every click drew other bars
    assert "4 × 2 = 8 devices" in view.readout.value
    monkeypatch.undo()
    assert view.chart.value == mv.chart_svg(model, (4, 2, True, "mixed"))


def test_the_run_button_trains_and_shows_measured_beside_counted(model):
    view = mv.memory_view(model, devices=2, make_devices=virtual_devices)
    view.buttons.start_button.click()
    assert view.buttons.run.join(WAIT_S), "the ZeRO-1 run did not end"
    assert "finished" in view.status.value
    assert "ledger = count on every device (kB): True" in view.table.value
    devices = len({tuple(round(n / 100) for n in f) for f in model.zero1[2]})  # as read
    assert view.table.value.count("<tr>") == 1 + devices


def test_the_view_fits_a_projector_in_large_type(model):
    view = mv.memory_view(model)
    svg = view.chart.value
    width = int(re.search(r"<svg width='(\d+)'", svg).group(1))
    assert width + 500 <= 1280 - 60                                # chart, then the side
    sizes = [int(s) for s in re.findall(r"font-size='(\d+)'", svg)]
    sizes += [int(s) for s in re.findall(r"font:(\d+)px", view.readout.value)]
    assert sizes and min(sizes) >= 18


def test_bad_settings_are_refused(model):
    with pytest.raises(ValueError, match="no setting"):
        mv.memory_view(model, devices=3)
    with pytest.raises(ValueError, match="split evenly"):
        mm.build_memory_model(WIDTHS, 6, devices=(4,), tensor=(1,))
    with pytest.raises(ValueError, match="precision must be"):
        mm.in_precision(model.zero1[2][0], "bfloat8", 2)
