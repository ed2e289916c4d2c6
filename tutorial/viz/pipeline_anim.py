"""Pipeline schedules, animated: which stage works on which micro-batch at each tick.

Model (pure, computed once): :func:`build_model` turns every schedule of
:mod:`tutorial.parallel.pipeline.schedules`, for every stage and micro-batch count the view
offers, into :class:`Frames` (the grid of tasks, the activations each stage holds, the
idle share so far). View: :func:`pipeline_animation` draws them; Play and the tick slider
only look frames up, the stage and micro-batch sliders pick other frames.

>>> model = build_model(stage_counts=(3,), microbatch_counts=(4,))
>>> f = model["1f1b", 3, 4]
>>> f.labels[0], f.held[5].tolist()
(('F0', '', ''), [3, 2, 1])
>>> round(f.idle_share[-1], 4) == round(2 / 6, 4)      # the bubble (p-1)/(m+p-1)
True
"""

import contextlib
import dataclasses
import html
from typing import Tuple

import numpy as np

from tutorial.parallel.pipeline import schedules as sch

STAGE_COUNTS = range(2, 9)
MICROBATCH_COUNTS = range(1, 17)
ALL = "all three"


@dataclasses.dataclass(frozen=True)
class Frames:
    plan: sch.Schedule
    labels: Tuple[Tuple[str, ...], ...]   # (ticks) x (stages): 'F3', 'B0' or '' (idle)
    held: np.ndarray                      # (ticks, stages) micro-batches of activations held
    idle_share: np.ndarray                # (ticks,) idle share of the stages up to that tick


def build_frames(plan):
    labels = [[""] * plan.stages for _ in range(plan.ticks)]
    for t in plan.tasks:
        labels[t.tick][t.stage] = f"{t.kind}{t.microbatch}"
    working = np.array([[lab != "" for lab in row] for row in labels])
    done = np.cumsum(working.sum(axis=1))
    slots = plan.stages * np.arange(1, plan.ticks + 1)
    return Frames(plan, tuple(map(tuple, labels)), np.array(sch.held(plan)),
                  (slots - done) / slots)


def build_model(names=tuple(sch.SCHEDULES), stage_counts=STAGE_COUNTS,
                microbatch_counts=MICROBATCH_COUNTS):
    """{(name, p, m): Frames} for every schedule the view offers, computed once."""
    return {(name, p, m): build_frames(sch.schedule(name, p, m))
            for name in names for p in stage_counts for m in microbatch_counts}


def _cell(label, now):
    if not label:
        return "<td style='background:#f4f4f4'></td>"
    hue = 210 if label[0] == "F" else 28
    border = "outline:2px solid #222;" if now else ""
    return (f"<td style='background:hsl({hue},70%,62%);{border}text-align:center;"
            f"font:11px monospace'>{html.escape(label)}</td>")


def render(frames, tick):
    """HTML of one schedule up to ``tick``: the grid, then what each stage holds now."""
    plan = frames.plan
    tick = min(tick, plan.ticks - 1)
    rows = []
    for s in range(plan.stages):
        cells = "".join(_cell(frames.labels[k][s], k == tick) if k <= tick else
                        "<td style='background:white;border:1px dotted #ddd'></td>"
                        for k in range(plan.ticks))
        rows.append(f"<tr><th style='font:11px sans-serif;padding-right:4px'>stage {s}</th>"
                    f"{cells}<td style='font:11px sans-serif;padding-left:6px'>holds "
                    f"{frames.held[tick][s]}</td></tr>")
    bubble = sch.bubble(plan)
    caption = (f"<b>{plan.name}</b>: tick {tick + 1} of {plan.ticks} &middot; idle so far "
               f"{frames.idle_share[tick]:.0%} &middot; bubble of the step {bubble:.0%}")
    if plan.name != "naive":
        p, m = plan.stages, plan.microbatches
        caption += f" = (p&minus;1)/(m+p&minus;1) = {p - 1}/{m + p - 1}"
    return (f"<div data-tick='{tick}' style='margin:4px 0 10px 0'>"
            f"<div style='font:13px sans-serif'>{caption}</div>"
            f"<table style='border-collapse:separate;border-spacing:1px;table-layout:fixed;"
            f"margin:0'>"
            f"{''.join(rows)}</table></div>")


def pipeline_animation(model=None, stages=4, microbatches=8, interval_ms=400):
    """The widget: show, stages, micro-batches, Play + tick slider, one panel per schedule."""
    import ipywidgets as w

    model = build_model() if model is None else model
    names = tuple(dict.fromkeys(k[0] for k in model))
    ps = sorted({k[1] for k in model})
    ms = sorted({k[2] for k in model})
    if stages not in ps or microbatches not in ms:
        raise ValueError(f"no frames for stages={stages!r}, microbatches={microbatches!r}: "
                         f"choose stages in {ps[0]}..{ps[-1]} and micro-batches in "
                         f"{ms[0]}..{ms[-1]}")
    wide = {"description_width": "initial"}
    pick = w.Dropdown(options=[ALL, *names], value=ALL, description="show", style=wide)
    n_stages = w.IntSlider(value=stages, min=ps[0], max=ps[-1], description="stages p",
                           style=wide)
    n_micro = w.IntSlider(value=microbatches, min=ms[0], max=ms[-1],
                          description="micro-batches m", style=wide)
    play = w.Play(value=0, min=0, max=1, interval=interval_ms, description="Play")
    tick = w.IntSlider(value=0, min=0, max=1, description="tick", style=wide)
    w.jslink((play, "value"), (tick, "value"))
    play.add_class("pipeline-play")                     # for a browser test to find
    tick.add_class("pipeline-tick")
    views = {name: w.HTML() for name in names}          # built once; draw() sets their value
    panels = w.VBox()
    shown = {}

    def draw(*_):                                       # only looks frames up
        with contextlib.ExitStack() as stack:
            for name in shown:
                stack.enter_context(views[name].hold_sync())
            for name, frames in shown.items():
                views[name].value = render(frames, tick.value)

    def choose(*_):
        chosen = names if pick.value == ALL else (pick.value,)
        shown.clear()
        shown.update({name: model[name, n_stages.value, n_micro.value] for name in chosen})
        last = max(f.plan.ticks for f in shown.values()) - 1
        play.max = tick.max = last
        tick.value = min(tick.value, last)
        panels.children = [views[name] for name in chosen]
        draw()

    for control in (pick, n_stages, n_micro):
        control.observe(choose, "value")
    tick.observe(draw, "value")
    choose()
    # start on the last tick: a saved or exported frame shows whole schedules (Play at the
    # end starts again from tick 0)
    play.value = tick.value = tick.max
    widget = w.VBox([w.HBox([play, tick]), w.HBox([pick, n_stages, n_micro]), panels,
                     w.HTML("<div style='font:12px sans-serif'>blue: forward F<i>i</i> of "
                            "micro-batch <i>i</i>; orange: backward B<i>i</i>; grey: idle "
                            "(the bubble). 'holds': micro-batches whose activations the stage "
                            "keeps for their backward.</div>")])
    widget.controls = dict(pick=pick, stages=n_stages, microbatches=n_micro, play=play,
                           tick=tick)
    widget.panels = panels
    return widget
