"""The all-to-all, animated: each node's rows leave for their destinations, step by step.

Model (pure, computed once): :func:`build_frames` reads an all-to-all schedule
(:func:`tutorial.experts.all_to_all.schedule`, pairwise exchange) and lists, for each
step, the messages in flight and which sources' blocks each node holds
(:func:`~tutorial.experts.all_to_all.held`). View: :func:`all_to_all_animation` draws
them; Play and the step slider only look frames up.

Each node is a row: on the left its input, one cell per row of data coloured by the node
it is for; on the right its output, one cell per row it will receive, coloured by the
node it came from once it has arrived (outlined: arriving at this step). Step 0 is the
block a node keeps. Sizes are the projector's (:mod:`tutorial.viz.projector`).

>>> f = build_frames(schedule([[1, 2], [1, 0]], row_bytes=4))
>>> f.held[0], f.held[1]                  # node 0 keeps its own row; then each receives
(((0,), ()), ((0, 1), (0,)))
>>> f.sent                                # bytes on the wires up to each step
(0, 12)
"""

import dataclasses
from typing import Tuple

from tutorial.experts.all_to_all import AllToAllSchedule, bytes_sent, held, schedule
from tutorial.viz.projector import TEXT_PX
from tutorial.viz.saved_frame import one_mark

HUES = (210, 28, 120, 280, 0, 170, 50, 320)
CELL_PX = 16
MAX_CELLS = 24     # a node's input or output at most this many cells wide: both sides fit a
                   # notebook and a 1280-pixel slide (48 pushed the received rows off the page)


@dataclasses.dataclass(frozen=True)
class Frames:
    plan: AllToAllSchedule
    held: Tuple[Tuple[Tuple[int, ...], ...], ...]   # [step][node]: sources held
    moving: Tuple[Tuple[Tuple[int, int, int], ...], ...]   # [step]: (source, dest, bytes)
    sent: Tuple[int, ...]                            # bytes sent up to and including step


def build_frames(plan):
    moving = [tuple((m.source, m.destination, 0) for m in plan.kept)]
    moving += [tuple((m.source, m.destination, m.nbytes) for m in step.messages)
               for step in plan.steps]
    sent, total = [], 0
    for step in moving:
        total += sum(b for _, _, b in step)
        sent.append(total)
    return Frames(plan, tuple(held(plan)), tuple(moving), tuple(sent))


def _colour(node, light=False):
    return f"hsl({HUES[node % len(HUES)]},70%,{82 if light else 58}%)"


def _cells(blocks, scale):
    """``blocks``: (node, rows, style) -> a row of cells, ``scale`` cells per data row."""
    out = []
    for node, rows, style in blocks:
        for _ in range(max(1, round(rows * scale)) if rows else 0):
            out.append(f"<span style='display:inline-block;width:{CELL_PX - 2}px;"
                       f"height:{CELL_PX}px;margin-right:2px;{style}'></span>")
    return "".join(out)


def render(frames, step):
    """HTML of the all-to-all after ``step`` (0: the kept blocks)."""
    plan = frames.plan
    step = min(step, len(plan.steps))
    widest = max(max(plan.input_rows), max(plan.output_rows), 1)
    scale = min(1.0, MAX_CELLS / widest)
    now = {(s, d) for s, d, _ in frames.moving[step]}
    text = f"font-size:{TEXT_PX}px;white-space:nowrap;padding:3px 10px 3px 0"
    rows = []
    for j in range(plan.num_nodes):
        sent_blocks = [(d, plan.counts[j][d], f"background:{_colour(d)}")
                       for d in range(plan.num_nodes)]
        got = []
        for i in range(plan.num_nodes):
            arrived = i in frames.held[step][j]
            edge = "outline:2px solid #222;outline-offset:-2px;" if (i, j) in now else ""
            got.append((i, plan.counts[i][j], (f"background:{_colour(i)};{edge}" if arrived
                                               else "background:white;box-shadow:inset 0 0 "
                                                    "0 1px #bbb;")))
        rows.append(f"<tr><td style='{text};color:{_colour(j)}'>node {j}</td>"
                    f"<td style='{text}'>{_cells(sent_blocks, scale)}</td>"
                    f"<td style='{text}'>&rarr;</td>"
                    f"<td style='{text}'>{_cells(got, scale)}</td></tr>")
    moves = ", ".join(f"{s}&rarr;{d}" for s, d, b in frames.moving[step] if b) or \
        "each node copies the block it keeps"
    caption = (f"step {step} of {len(plan.steps)}: {moves} &middot; sent so far "
               f"{frames.sent[step]:,} B of {sum(bytes_sent(plan)):,} B")
    return (f"<div data-step='{step}' style='margin:4px 0'>"
            f"<div style='font-size:{TEXT_PX}px;line-height:1.3'>{caption}</div>"
            f"<table style='border-collapse:collapse;margin:0'>{''.join(rows)}</table></div>")


def all_to_all_animation(counts, row_bytes=4, interval_ms=900):
    """The widget for the all-to-all of ``counts`` (K x K rows): Play + step slider."""
    import ipywidgets as w

    frames = build_frames(schedule(counts, row_bytes))
    last = len(frames.plan.steps)
    play = w.Play(value=last, min=0, max=last, interval=interval_ms, description="Play")
    step = w.IntSlider(value=last, min=0, max=last, description="step",
                       style={"description_width": "initial"},
                       layout=w.Layout(width="240px"))
    w.jslink((play, "value"), (step, "value"))
    play.add_class("all-to-all-play")
    step.add_class("all-to-all-step")
    view = w.HTML(render(frames, last))
    step.observe(lambda change: setattr(view, "value", render(frames, change["new"])),
                 "value")
    legend = w.HTML(f"<div style='font-size:{TEXT_PX}px;line-height:1.3'>left: a node's "
                    "rows, coloured by the node they are for; right: what it receives, "
                    "coloured by the sender once arrived (outlined: this step). Step s: "
                    "node i sends to node i + s (mod K)</div>")
    widget = w.VBox([w.HBox([play, step]), view, legend])
    widget.controls = dict(play=play, step=step)
    widget.view = view
    widget.frames = frames
    return one_mark(widget)
