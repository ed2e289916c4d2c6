"""Pipeline schedules, animated: which stage works on which micro-batch at each tick.

Model (pure, computed once): :func:`build_model` turns every schedule of
:mod:`tutorial.parallel.pipeline.schedules`, for every stage and micro-batch count the view
offers, into :class:`Frames` (the grid of tasks, the activations each stage holds, the
idle share so far). View: :func:`pipeline_animation` draws them; Play and the tick slider
only look frames up, the stage and micro-batch sliders pick other frames.

Sizes: every word is ``TEXT_PX`` (18 px, a 1280x720 projector's back row), and so are the
cell labels while the grid is at most ``GRID_PX // CELL_PX`` = 36 ticks wide and they have
two characters (all three schedules at p = 3, m = 6, the deck's; GPipe or 1F1B alone at
p = 4 up to m = 10). Wider grids shrink to ``GRID_PX``, their labels with them, then keep
only colours (:func:`grid_sizes`).

>>> model = build_model(stage_counts=(3,), microbatch_counts=(4,))
>>> f = model["1f1b", 3, 4]
>>> f.labels[0], f.held[5].tolist()
(('F0', '', ''), [3, 2, 1])
>>> round(float(f.idle_share[-1]), 4) == round(2 / 6, 4)      # the bubble (p-1)/(m+p-1)
True
"""

import contextlib
import dataclasses
import html
from typing import Tuple

import numpy as np

from tutorial.parallel.pipeline import schedules as sch
from tutorial.viz.projector import CHAR_EM, TEXT_PX
from tutorial.viz.saved_frame import one_mark

STAGE_COUNTS = range(2, 9)
MICROBATCH_COUNTS = range(1, 17)
ALL = "all three"

CELL_PX = 25        # a tick's column, wide enough for a TEXT_PX label such as 'B3'
ROW_PX = 28         # a stage's row
GRID_PX = 900       # the most the tick columns take together: fits a slide beside the names
IDLE = "#c8c8c8"     # an idle tick: grey, unlike the white of ticks still to come
MIN_LABEL_PX = 9    # in a grid scaled down further, cells keep their colour, not their label


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


def grid_sizes(ticks, label_chars):
    """(px per tick column, px of the cell labels, 0 when they are hidden) for a grid
    ``ticks`` wide whose longest label has ``label_chars`` characters.

    Up to ``GRID_PX // CELL_PX`` ticks a column is ``CELL_PX`` wide and a two-character
    label (``F3``) is ``TEXT_PX``; wider grids scale down to ``GRID_PX`` and their labels
    with them, until a label would be under ``MIN_LABEL_PX``: then the cells keep their
    colour and the label only shows on hover.

    >>> grid_sizes(16, 2), grid_sizes(36, 2)        # GPipe, then naive, at p = 3, m = 6
    ((25, 18), (25, 18))
    >>> grid_sizes(38, 3), grid_sizes(64, 2)        # GPipe at p = 4, m = 16; naive at m = 8
    ((23, 11), (14, 10))
    """
    cell = min(CELL_PX, GRID_PX // ticks)
    label = min(TEXT_PX, int((cell - 2) / (CHAR_EM * label_chars)))
    return cell, (label if label >= MIN_LABEL_PX else 0)


def _column(cell):
    return f"width:{cell}px;min-width:{cell}px;max-width:{cell}px;padding:0;"


def _cell(label, where, cell, label_px, now):
    """One tick of one stage: its colour, its label if ``label_px``, always a tooltip."""
    if not label:
        return f"<td title='idle, {where}' style='{_column(cell)}background:{IDLE}'></td>"
    style = _column(cell) + f"background:hsl({210 if label[0] == 'F' else 28},70%,62%);"
    if now:
        style += "outline:2px solid #222;outline-offset:-1px;"
    if label_px:
        style += f"font:{label_px}px monospace;text-align:center;overflow:hidden;"
    text = html.escape(label) if label_px else ""
    return f"<td title='{html.escape(label)}, {where}' style='{style}'>{text}</td>"


def render(frames, tick, ticks_wide=None):
    """HTML of one schedule up to ``tick``: the grid, then what each stage holds now.

    ``ticks_wide``: the columns the grid is sized for (the longest schedule shown beside
    it, so that the same tick lines up in every panel); the schedule's own by default.
    """
    plan = frames.plan
    tick = min(tick, plan.ticks - 1)
    chars = max(len(label) for row in frames.labels for label in row)
    cell, label_px = grid_sizes(max(plan.ticks, ticks_wide or 0), chars)
    text = f"font-size:{TEXT_PX}px;white-space:nowrap"
    future = f"<td style='{_column(cell)}background:white;box-shadow:inset 0 0 0 1px #ddd'></td>"
    rows = []
    for s in range(plan.stages):
        cells = "".join(_cell(frames.labels[k][s], f"stage {s}, tick {k + 1}", cell,
                              label_px, k == tick) if k <= tick else future
                        for k in range(plan.ticks))
        rows.append(f"<tr style='height:{ROW_PX}px'>"
                    f"<th style='{text};font-weight:normal;text-align:left;"
                    f"padding:0 8px 0 0'>stage {s}</th>{cells}"
                    f"<td style='{text};padding:0 0 0 8px'>holds {frames.held[tick][s]}"
                    f"</td></tr>")
    bubble = sch.bubble(plan)
    caption = (f"<b>{plan.name}</b>: tick {tick + 1} of {plan.ticks} &middot; idle so far "
               f"{frames.idle_share[tick]:.0%} &middot; bubble of the step {bubble:.0%}")
    if plan.name != "naive":
        p, m = plan.stages, plan.microbatches
        caption += f" = (p&minus;1)/(m+p&minus;1) = {p - 1}/{m + p - 1}"
    return (f"<div data-tick='{tick}' style='margin:4px 0 10px 0;overflow-x:auto'>"
            f"<div style='{text};line-height:1.3'>{caption}</div>"
            f"<table style='border-collapse:separate;border-spacing:1px;margin:0;"
            f"line-height:1.2'>"
            f"{''.join(rows)}</table></div>")


def pipeline_animation(model=None, stages=3, microbatches=6, interval_ms=400):
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
    pick = w.Dropdown(options=[ALL, *names], value=ALL, description="show", style=wide,
                      layout=w.Layout(width="210px"))
    n_stages = w.IntSlider(value=stages, min=ps[0], max=ps[-1], description="stages p",
                           style=wide, layout=w.Layout(width="250px"))
    n_micro = w.IntSlider(value=microbatches, min=ms[0], max=ms[-1],
                          description="micro-batches m", style=wide,
                          layout=w.Layout(width="310px"))
    # the slider counts ticks from 1, as the captions do; frames are looked up from 0
    play = w.Play(value=1, min=1, max=2, interval=interval_ms, description="Play")
    tick = w.IntSlider(value=1, min=1, max=2, description="tick", style=wide,
                       layout=w.Layout(width="230px"))
    w.jslink((play, "value"), (tick, "value"))
    play.add_class("pipeline-play")                     # for a browser test to find
    tick.add_class("pipeline-tick")
    views = {name: w.HTML() for name in names}          # built once; draw() sets their value
    panels = w.VBox()
    shown = {}

    def draw(*_):                                       # only looks frames up
        columns = max(f.plan.ticks for f in shown.values())  # a tick lines up in all panels
        with contextlib.ExitStack() as stack:
            for name in shown:
                stack.enter_context(views[name].hold_sync())
            for name, frames in shown.items():
                views[name].value = render(frames, tick.value - 1, columns)

    def choose(*_):
        chosen = names if pick.value == ALL else (pick.value,)
        shown.clear()
        shown.update({name: model[name, n_stages.value, n_micro.value] for name in chosen})
        last = max(f.plan.ticks for f in shown.values())
        play.max = tick.max = last
        tick.value = min(tick.value, last)
        panels.children = [views[name] for name in chosen]
        draw()

    for control in (pick, n_stages, n_micro):
        control.observe(choose, "value")
    tick.observe(draw, "value")
    choose()
    # start on the last tick: a saved or exported frame shows whole schedules (Play at the
    # end starts again from tick 1)
    play.value = tick.value = tick.max
    controls = w.HBox([play, tick, pick, n_stages, n_micro],
                      layout=w.Layout(flex_flow="row wrap", align_items="center"))
    legend = w.HTML(f"<div style='font-size:{TEXT_PX}px;line-height:1.3'>blue F<i>i</i>, "
                    "orange B<i>i</i>: forward, backward of micro-batch <i>i</i>; grey: "
                    "idle (the bubble); holds: micro-batches whose activations the stage "
                    "keeps at this tick, from their forward until their backward has run"
                    "</div>")
    widget = w.VBox([controls, panels, legend])
    widget.controls = dict(pick=pick, stages=n_stages, microbatches=n_micro, play=play,
                           tick=tick)
    widget.panels, widget.legend = panels, legend
    return one_mark(widget)
