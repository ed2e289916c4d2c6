"""Ring attention, animated: key/value blocks travel the ring, each device's softmax fills in.

Model (pure, computed once): :func:`build_model` turns ring attention's schedule
(:func:`tutorial.sequence.ring_schedule.schedule`) for every device count, placement and
mask the view offers into :class:`Frames`: the step at which each query-key pair of the
attention matrix is computed (and by which device), what each device holds at each step,
and how much of each device's softmax is filled. View: :func:`ring_animation` draws them;
Play and the step slider only look frames up.

The picture is the attention matrix, queries down and keys across, one cell per pair:
a cell is coloured by the device whose queries it belongs to once that device has held
the key's block, white before, grey where the causal mask sets the pair aside. Sizes are
the projector's (:mod:`tutorial.viz.projector`): every word ``TEXT_PX``.

>>> model = build_model(device_counts=(2,), seq_len=8)
>>> f = model[2, "plain", True]
>>> f.step_of[3].tolist()          # query 3 (device 0): keys 0-3 at step 0, 4-7 masked
[0, 0, 0, 0, -1, -1, -1, -1]
>>> f.step_of[4].tolist()          # query 4 (device 1): keys 4 at step 0, keys 0-3 at step 1
[1, 1, 1, 1, 0, -1, -1, -1]
>>> f.filled[0].tolist(), f.filled[1].tolist()      # share of each device's pairs, per step
([1.0, 0.3846...], [1.0, 1.0])
"""

import contextlib
import dataclasses
import html
from typing import Tuple

import numpy as np

from tutorial.sequence import ring_schedule as rs
from tutorial.sequence.placement import PLACEMENTS, causal_work
from tutorial.viz.projector import TEXT_PX
from tutorial.viz.saved_frame import one_mark

DEVICE_COUNTS = range(2, 9)
SEQ_LEN = 16                 # 16 x 16 cells: readable at the back, room for 8 devices zig-zag
CELL_PX = 18        # 16 rows and a caption fit a 720-pixel slide under its title
MASKED = "#c8c8c8"
HUES = (210, 28, 120, 280, 0, 170, 50, 320)      # one per device, in order
LEGEND = (f"<div style='font-size:{TEXT_PX}px;line-height:1.3;max-width:520px;"
          f"margin-top:12px'>rows: queries, coloured by the device holding them; columns: "
          f"keys. A cell fills when its query's device holds that key's block (outlined: "
          f"this step); grey: set aside by the causal mask</div>")


@dataclasses.dataclass(frozen=True)
class Frames:
    plan: rs.RingSchedule
    step_of: np.ndarray      # (seq, seq) step at which query i meets key j; -1: masked
    device_of: np.ndarray    # (seq,) the device holding query position i
    filled: np.ndarray       # (steps, devices) share of a device's pairs computed so far
    sent: np.ndarray         # (steps,) bytes sent on the ring up to and including the step
    busiest: np.ndarray      # (steps,) pairs on the critical path so far (busiest device)


def build_frames(plan):
    seq, k = plan.seq_len, plan.num_devices
    step_of = np.full((seq, seq), -1)
    device_of = np.zeros(seq, dtype=int)
    for h in plan.held:
        device_of[h.positions] = h.device
    done = np.zeros((k, k))
    for s, step in enumerate(plan.steps):
        for work in step:
            queries = plan.held[work.device].positions
            keys = plan.held[work.block].positions
            sees = (queries[:, None] >= keys[None, :]) if plan.causal else \
                np.ones((queries.size, keys.size), bool)
            rows, cols = np.nonzero(sees)
            step_of[queries[rows], keys[cols]] = s
            done[s, work.device] = work.pairs
    totals = done.sum(axis=0)
    filled = np.cumsum(done, axis=0) / np.where(totals > 0, totals, 1)
    sent = np.cumsum([sum(w.nbytes for w in step) for step in plan.steps])
    busiest = np.cumsum([max(w.pairs for w in step) for step in plan.steps])
    return Frames(plan, step_of, device_of, filled, sent, busiest)


def build_model(device_counts=DEVICE_COUNTS, seq_len=SEQ_LEN, position_bytes=8):
    """{(devices, placement, causal): Frames} for every setting the view offers, once."""
    return {(k, p, c): build_frames(rs.schedule(seq_len, k, c, p, position_bytes))
            for k in device_counts for p in PLACEMENTS for c in (True, False)}


def _colour(device, light=False):
    return f"hsl({HUES[device % len(HUES)]},70%,{80 if light else 58}%)"


def _matrix(frames, step):
    cell = f"width:{CELL_PX}px;height:{CELL_PX}px;padding:0;"
    rows = []
    for i in range(frames.plan.seq_len):
        d = frames.device_of[i]
        cells = []
        for j, s in enumerate(frames.step_of[i]):
            if s < 0:
                cells.append(f"<td title='query {i}, key {j}: masked' style='{cell}"
                             f"background:{MASKED}'></td>")
                continue
            colour = _colour(d) if s < step else _colour(d, True) if s == step else "white"
            edge = "box-shadow:inset 0 0 0 2px #222;" if s == step else \
                "" if s < step else "box-shadow:inset 0 0 0 1px #ddd;"
            cells.append(f"<td title='query {i}, key {j}: device {d}, step {s + 1}' "
                         f"style='{cell}background:{colour};{edge}'></td>")
        rows.append(f"<tr><th style='font-size:{TEXT_PX}px;line-height:{CELL_PX}px;"
                    f"font-weight:normal;padding:0 6px 0 0;color:{_colour(d)}'>{i}</th>"
                    f"{''.join(cells)}</tr>")
    return (f"<table style='border-collapse:separate;border-spacing:1px;margin:0'>"
            f"{''.join(rows)}</table>")


def _devices(frames, step):
    text = f"font-size:{TEXT_PX}px;white-space:nowrap;padding:2px 8px 2px 0"
    rows = []
    for work in frames.plan.steps[step]:
        share = frames.filled[step, work.device]
        bar = (f"<div style='width:120px;height:14px;background:#eee;display:inline-block;"
               f"vertical-align:middle'><div style='width:{share * 120:.0f}px;height:14px;"
               f"background:{_colour(work.device)}'></div></div>")
        rows.append(f"<tr><td style='{text};color:{_colour(work.device)}'>device "
                    f"{work.device}</td><td style='{text}'>holds K,V of {work.block} "
                    f"({work.mask}{': idle' if work.mask == rs.FULLY else ''})</td><td style='{text}'>{bar} {share:.0%}</td></tr>")
    return f"<table style='border-collapse:collapse;margin:0'>{''.join(rows)}</table>"


def render(frames, step):
    """HTML of the ring at ``step`` (from 0): the matrix so far, then each device's state."""
    plan = frames.plan
    step = min(step, plan.num_devices - 1)
    work = causal_work(plan.held) if plan.causal else rs.work(plan)
    caption = (f"step {step + 1} of {plan.num_devices} &middot; sent so far "
               f"{int(frames.sent[step])} B &middot; busiest device's pairs so far "
               f"{int(frames.busiest[step])} &middot; whole ring: busiest / mean pairs "
               f"{max(work) / (sum(work) / len(work)):.2f}")
    return (f"<div data-step='{step}' style='margin:4px 0 10px 0'>"
            f"<div style='font-size:{TEXT_PX}px;line-height:1.3'>{caption}</div>"
            f"<div style='display:flex;gap:24px;align-items:flex-start'>"
            f"{_matrix(frames, step)}<div>{_devices(frames, step)}{LEGEND}</div></div></div>")


def ring_animation(model=None, devices=4, placement="plain", causal=True, interval_ms=900):
    """The widget: Play + step slider, devices, placement and mask; frames looked up."""
    import ipywidgets as w

    model = build_model() if model is None else model
    counts = sorted({key[0] for key in model})
    if (devices, placement, bool(causal)) not in model:
        raise ValueError(f"no frames for devices={devices!r}, placement={placement!r}: "
                         f"choose devices in {counts[0]}..{counts[-1]} and placement in "
                         f"{PLACEMENTS}")
    wide = {"description_width": "initial"}
    play = w.Play(value=1, min=1, max=devices, interval=interval_ms, description="Play")
    step = w.IntSlider(value=1, min=1, max=devices, description="step", style=wide,
                       layout=w.Layout(width="220px"))
    w.jslink((play, "value"), (step, "value"))
    play.add_class("ring-play")                          # for a browser test to find
    step.add_class("ring-step")
    n_devices = w.IntSlider(value=devices, min=counts[0], max=counts[-1],
                            description="devices K", style=wide,
                            layout=w.Layout(width="250px"))
    pick = w.Dropdown(options=PLACEMENTS, value=placement, description="placement",
                      style=wide, layout=w.Layout(width="220px"))
    mask = w.Checkbox(value=bool(causal), description="causal", indent=False,
                      layout=w.Layout(width="110px"))
    view = w.HTML()
    shown = {}

    def draw(*_):                                        # only looks a frame up
        view.value = render(shown["frames"], step.value - 1)

    def choose(*_):
        shown["frames"] = model[n_devices.value, pick.value, mask.value]
        with view.hold_sync():
            play.max = step.max = n_devices.value
            step.value = min(step.value, step.max)
            draw()

    for control in (n_devices, pick, mask):
        control.observe(choose, "value")
    step.observe(draw, "value")
    choose()
    play.value = step.value = step.max       # a saved frame shows the whole ring
    controls = w.HBox([play, step, n_devices, pick, mask],
                      layout=w.Layout(flex_flow="row wrap", align_items="center"))
    widget = w.VBox([controls, view])
    widget.controls = dict(play=play, step=step, devices=n_devices, placement=pick,
                           causal=mask)
    widget.view = view
    return one_mark(widget)
