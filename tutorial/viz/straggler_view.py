"""The straggler slider: who waits in synchronous SGD, and what asynchronous SGD pays instead.

Model: :func:`tutorial.viz.straggler_model.build_straggler_model`, every run computed
once. View: :func:`straggler_view`, a slider over the straggler's slowdown; each move
looks both runs up and draws them: the first time units of each schedule (the fast
workers a band of thin rows under one label, the straggler a row of its own; grey: waiting
for the round to end), the loss against simulated time, and the numbers the slide states.
Nothing is simulated in a callback. Sized for 1280x720 with every label :data:`TEXT_PX` px;
in a narrower notebook the loss plot wraps under the schedules.

>>> from tutorial.viz.straggler_model import build_straggler_model
>>> view = straggler_view(build_straggler_model(slowdowns=(1, 4), updates=80), value=4)
>>> "straggler 4× slower" in view.readout.value
True
"""

import html

import numpy as np

from tutorial.viz.projector import TEXT_PX, text_width
from tutorial.viz.saved_frame import one_mark
from tutorial.viz.straggler_model import async_bars, summarize, sync_bars

HORIZON = 16.0                  # time units of each schedule drawn
FAST, SLOW, WAIT = "#1f77b4", "#d62728", "#d9d9d9"
SYNC, ASYNC, GUIDE = "#ff7f0e", "#2ca02c", "#666"
GANTT_W, LABEL, RIGHT = 640, 92, 16      # the schedules; LABEL: the worker names' column
FAST_ROW, SLOW_ROW, TITLE = 13, 34, 26   # px: a fast worker's row, the straggler's, a title
PLOT_W, PLOT_H, LEFT, TOP = 560, 340, 52, 30   # the loss plot and its frame's left, top


def _when(t):
    return "never" if not np.isfinite(t) else f"t&nbsp;=&nbsp;{t:.0f}"      # one line


def readout_html(s):
    """The sentences the slide says for one :class:`Summary`, all from the traces."""
    faster = (f"async {s.speedup:.1f}&times; sooner" if np.isfinite(s.speedup)
              else "async only")
    who = (f"straggler {s.slowdown:g}× slower" if s.slowdown > 1
           else "no straggler (all equally fast)")
    return (f"<div style='font:{TEXT_PX}px sans-serif;line-height:1.4'><b>{who}</b>: each "
            f"synchronous round waits for the slowest worker, so the workers "
            f"spend {s.idle:.0%} of their time waiting. Loss &le; target at "
            f"{_when(s.sync_time)} (sync) and {_when(s.async_time)} (async): {faster}.<br>"
            f"The price: worker 7's gradients arrive {s.straggler_staleness:.0f} updates "
            f"stale on average (the others' {s.others_staleness:.1f}).</div>")


def _row_top(k, workers):
    """The y of worker k's row: the fast workers share a band of thin rows under one
    label, the straggler (the last worker) has a row tall enough for its staleness."""
    return TITLE + k * FAST_ROW + (3 if k == workers - 1 else 0)


def _rows(bars, workers, colour_of, title, slow):
    scale = (GANTT_W - LABEL - RIGHT) / HORIZON
    slow_top = _row_top(workers - 1, workers)
    fast = "w0" if workers == 2 else f"w0–w{workers - 2}"
    out = [f"<text x='0' y='{TEXT_PX}' font-weight='bold'>{html.escape(title)}</text>",
           f"<text x='0' y='{(TITLE + slow_top) / 2 + TEXT_PX / 3:.0f}'>{fast}</text>",
           f"<text x='0' y='{slow_top + SLOW_ROW / 2 + TEXT_PX / 3:.0f}'>"
           f"w{workers - 1}{slow}</text>"]
    for k, start, end, extra in bars:
        x0, x1 = LABEL + start * scale, LABEL + min(end, HORIZON) * scale
        y, tall = _row_top(k, workers), (SLOW_ROW if k == workers - 1 else FAST_ROW)
        fill, label = colour_of(k, extra)
        out.append(f"<rect x='{x0:.1f}' y='{y}' width='{max(x1 - x0 - 1, 1):.1f}' "
                   f"height='{tall - 1}' fill='{fill}'><title>{html.escape(label)}</title></rect>")
        stale = not isinstance(extra, bool)              # async bars carry their staleness
        tau = f"τ={extra}"
        if k == workers - 1 and stale and x1 - x0 > text_width(tau) + 4:
            out.append(f"<text x='{x0 + 3:.1f}' y='{y + SLOW_ROW / 2 + TEXT_PX / 3:.0f}' "
                       f"fill='white'>{tau}</text>")
    return slow_top + SLOW_ROW, "".join(out)


def schedules_svg(case):
    """Both schedules' first :data:`HORIZON` time units, sync above async."""
    workers = len(case.durations)

    def sync_colour(k, waiting):
        if waiting:
            return WAIT, f"worker {k} waits for the round to end"
        return (SLOW if k == workers - 1 else FAST), f"worker {k} computes a gradient"

    def async_colour(k, staleness):
        colour = SLOW if k == workers - 1 else FAST
        return colour, f"worker {k}: applied {staleness} updates stale"

    slow = " (slow)" if case.durations[-1] > case.durations[0] else ""
    top_h, top = _rows(sync_bars(case, HORIZON), workers, sync_colour,
                       "synchronous: each round waits (grey) for the slowest", slow)
    low_h, low = _rows(async_bars(case, HORIZON), workers, async_colour,
                       "asynchronous: applied on arrival (τ: staleness)", slow)
    scale = (GANTT_W - LABEL - RIGHT) / HORIZON
    axis_y = top_h + 10 + low_h + TEXT_PX + 4
    ticks = "".join(f"<text x='{LABEL + t * scale:.1f}' y='{axis_y}' text-anchor='middle'>"
                    f"{t:g}</text>" for t in np.arange(0, HORIZON + 1, 4))
    return (f"<svg width='{GANTT_W}' height='{axis_y + 6}' font-family='sans-serif' "
            f"font-size='{TEXT_PX}'>{top}<g transform='translate(0,{top_h + 10})'>{low}</g>"
            f"<text x='0' y='{axis_y}' fill='{GUIDE}'>time</text>{ticks}</svg>")


def _loss_frame(model):
    """Axes shared by every slowdown, so a move of the slider moves the curves. Below the
    target the frame leaves room for the label of the run that reaches it first."""
    ends = [t for case in model.cases.values() for t in (case.sync.time_to_loss(model.target),
                                                         case.asyn.time_to_loss(model.target))]
    t_max = 1.2 * max([t for t in ends if np.isfinite(t)] or [HORIZON])
    highest = max(float(case.sync.loss[0]) for case in model.cases.values())
    return t_max, np.log10(model.target / 8), np.log10(highest * 1.5)


def _decade(d):
    return f"{10.0 ** d:g}"                              # 0.01, 0.1, 1, 10


def loss_svg(model, slowdown, frame=None):
    """Loss against simulated time, sync and async, the target and when each reaches it."""
    t_max, y_lo, y_hi = _loss_frame(model) if frame is None else frame
    case, right, bottom = model.cases[slowdown], PLOT_W - 10, PLOT_H - TEXT_PX - 12

    def xy(t, loss):
        x = LEFT + np.asarray(t) / t_max * (right - LEFT)
        y = TOP + (y_hi - np.log10(np.maximum(loss, 1e-12))) / (y_hi - y_lo) * (bottom - TOP)
        return x, np.clip(y, TOP, bottom)

    marks = []
    runs = ((case.sync, SYNC, -8), (case.asyn, ASYNC, TEXT_PX + 28))   # label above, below
    for trace, colour, dy in runs:
        keep = trace.time <= t_max
        x, y = xy(trace.time[keep], trace.loss[keep])
        points = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(x, y))
        marks.append(f"<polyline points='{points}' fill='none' stroke='{colour}' "
                     f"stroke-width='2.5'/>")
        hit = trace.time_to_loss(model.target)
        if np.isfinite(hit):
            hx, hy = xy(hit, model.target)
            label = f"t = {hit:.0f}"
            lx = min(hx + 6, right - 4 - text_width(label))        # inside the frame
            marks.append(f"<circle cx='{hx:.1f}' cy='{hy:.1f}' r='6' fill='{colour}'/>"
                         f"<text x='{lx:.1f}' y='{hy + dy:.1f}' fill='{colour}'>{label}</text>")
    _, target_y = xy(0, model.target)
    decades = range(int(np.ceil(y_lo)), int(np.floor(y_hi)) + 1)
    axes = "".join(f"<text x='{LEFT - 6}' y='{xy(0, 10.0 ** d)[1] + TEXT_PX / 3:.1f}' "
                   f"text-anchor='end'>{_decade(d)}</text>" for d in decades)
    return (f"<svg width='{PLOT_W}' height='{PLOT_H}' font-family='sans-serif' "
            f"font-size='{TEXT_PX}'>"
            f"<rect x='{LEFT}' y='{TOP}' width='{right - LEFT}' height='{bottom - TOP}' "
            f"fill='none' stroke='#999'/>{axes}"
            f"<line x1='{LEFT}' x2='{right}' y1='{target_y:.1f}' y2='{target_y:.1f}' "
            f"stroke='{GUIDE}' stroke-dasharray='5,4'/>{''.join(marks)}"
            f"<text x='{LEFT}' y='{PLOT_H - 6}' text-anchor='middle'>0</text>"
            f"<text x='{(LEFT + right) / 2:.0f}' y='{PLOT_H - 6}' fill='{GUIDE}' "
            f"text-anchor='middle'>simulated time</text><text x='{right}' "
            f"y='{PLOT_H - 6}' text-anchor='end'>{t_max:.0f}</text>"
            f"<text x='{LEFT}' y='{TEXT_PX}'>training loss "
            f"<tspan fill='{SYNC}'>&#9632; sync</tspan> <tspan fill='{ASYNC}'>&#9632; async"
            f"</tspan> <tspan fill='{GUIDE}'>- - target {model.target:g}</tspan></text></svg>")


def straggler_view(model, value=None):
    """The widget: a slowdown slider; the schedules, the loss curves and the readout."""
    import ipywidgets as w

    options = list(model.cases)
    value = options[len(options) // 2] if value is None else value
    if value not in model.cases:
        raise ValueError(f"value={value!r} is not a slowdown of the model: choose from {options}")
    frame = _loss_frame(model)                           # once: the axes never move
    slider = w.SelectionSlider(options=[(f"{s:g}×", s) for s in options], value=value,
                               description="straggler slowdown", continuous_update=True,
                               style={"description_width": "initial"},
                               layout=w.Layout(width="520px"))
    slider.add_class("straggler-slowdown")               # for a browser test to find
    readout, schedules, curves = w.HTML(), w.HTML(), w.HTML()
    readout.add_class("straggler-readout")

    def draw(*_):                                        # looks runs up; never simulates
        s = slider.value
        with readout.hold_sync(), schedules.hold_sync(), curves.hold_sync():
            readout.value = readout_html(summarize(model, s))
            schedules.value = schedules_svg(model.cases[s])
            curves.value = loss_svg(model, s, frame)

    slider.observe(draw, names="value")
    draw()
    plots = w.HBox([schedules, curves], layout=w.Layout(flex_flow="row wrap"))  # narrow: stack
    view = w.VBox([slider, readout, plots])
    view.add_class("straggler-view")
    view.slider, view.readout, view.schedules, view.curves = slider, readout, schedules, curves
    return one_mark(view)
