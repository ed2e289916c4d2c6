"""The straggler slider: who waits in synchronous SGD, and what asynchronous SGD pays instead.

Model: :func:`tutorial.viz.straggler_model.build_straggler_model`, every run computed
once. View: :func:`straggler_view`, a slider over the straggler's slowdown; each move
looks both runs up and draws them: the first time units of each schedule (one row per
worker; grey: waiting for the round to end), the loss against simulated time, and the
numbers the slide states. Nothing is simulated in a callback. Sized for 1280x720.

>>> from tutorial.viz.straggler_model import build_straggler_model
>>> view = straggler_view(build_straggler_model(slowdowns=(1, 4), updates=80), value=4)
>>> "straggler 4× slower" in view.readout.value
True
"""

import html

import numpy as np

from tutorial.viz.straggler_model import async_bars, summarize, sync_bars

HORIZON = 16.0                  # time units of each schedule drawn
FAST, SLOW, WAIT = "#1f77b4", "#d62728", "#d9d9d9"
SYNC, ASYNC = "#ff7f0e", "#2ca02c"
GANTT_W, ROW, LABEL, RIGHT = 620, 13, 78, 16
PLOT_W, PLOT_H = 500, 300


def _when(t):
    return "never" if not np.isfinite(t) else f"t = {t:.0f}"


def readout_html(s):
    """The sentences the slide says for one :class:`Summary`, all from the traces."""
    faster = (f"async {s.speedup:.1f}&times; sooner" if np.isfinite(s.speedup)
              else "async only")
    who = (f"straggler {s.slowdown:g}× slower" if s.slowdown > 1
           else "no straggler (all equally fast)")
    return (f"<div style='font:18px sans-serif;line-height:1.4'><b>{who}</b>: each "
            f"synchronous round waits for the slowest worker, so the workers "
            f"spend {s.idle:.0%} of their time waiting. Loss &le; target at "
            f"{_when(s.sync_time)} (sync) and {_when(s.async_time)} (async): {faster}.<br>"
            f"The price: worker 7's gradients arrive {s.straggler_staleness:.0f} updates "
            f"stale on average (the others' {s.others_staleness:.1f}).</div>")


def _rows(bars, workers, colour_of, title):
    scale = (GANTT_W - LABEL - RIGHT) / HORIZON
    height = workers * ROW + 22
    out = [f"<text x='0' y='12' font-size='13' font-weight='bold'>{html.escape(title)}</text>"]
    for k in range(workers):
        name = f"w{k}" + (" (slow)" if k == workers - 1 else "")
        out.append(f"<text x='0' y='{18 + k * ROW + 10}' font-size='11'>{name}</text>")
    for k, start, end, extra in bars:
        x0, x1 = LABEL + start * scale, LABEL + min(end, HORIZON) * scale
        fill, label = colour_of(k, extra)
        out.append(f"<rect x='{x0:.1f}' y='{18 + k * ROW}' width='{max(x1 - x0 - 1, 1):.1f}' "
                   f"height='{ROW - 2}' fill='{fill}'><title>{html.escape(label)}</title></rect>")
        stale = not isinstance(extra, bool)              # async bars carry their staleness
        if k == workers - 1 and stale and x1 - x0 > 34:
            out.append(f"<text x='{x0 + 3:.1f}' y='{18 + k * ROW + 9}' font-size='10' "
                       f"fill='white'>&#964;={extra}</text>")
    return height, "".join(out)


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

    top_h, top = _rows(sync_bars(case, HORIZON), workers, sync_colour,
                       "synchronous: every round waits for the slowest (grey: waiting)")
    low_h, low = _rows(async_bars(case, HORIZON), workers, async_colour,
                       "asynchronous: each gradient applied on arrival (τ: its staleness)")
    scale = (GANTT_W - LABEL - RIGHT) / HORIZON
    axis_y = top_h + low_h + 16
    ticks = "".join(f"<text x='{LABEL + t * scale:.1f}' y='{axis_y}' font-size='11' "
                    f"text-anchor='middle'>{t:g}</text>" for t in np.arange(0, HORIZON + 1, 4))
    return (f"<svg width='{GANTT_W}' height='{axis_y + 16}' font-family='sans-serif'>{top}"
            f"<g transform='translate(0,{top_h + 6})'>{low}</g>{ticks}"
            f"<text x='{LABEL + HORIZON * scale / 2:.1f}' y='{axis_y + 14}' font-size='11' "
            f"text-anchor='middle'>simulated time</text></svg>")


def _loss_frame(model):
    """Axes shared by every slowdown, so a move of the slider moves the curves."""
    ends = [t for case in model.cases.values() for t in (case.sync.time_to_loss(model.target),
                                                         case.asyn.time_to_loss(model.target))]
    t_max = 1.2 * max([t for t in ends if np.isfinite(t)] or [HORIZON])
    highest = max(float(case.sync.loss[0]) for case in model.cases.values())
    return t_max, np.log10(model.target / 3), np.log10(highest * 1.5)


def loss_svg(model, slowdown, frame=None):
    """Loss against simulated time, sync and async, the target and when each reaches it."""
    t_max, y_lo, y_hi = _loss_frame(model) if frame is None else frame
    case, left, bottom = model.cases[slowdown], 50, PLOT_H - 30

    def xy(t, loss):
        x = left + np.asarray(t) / t_max * (PLOT_W - left - 10)
        y = 10 + (y_hi - np.log10(np.maximum(loss, 1e-12))) / (y_hi - y_lo) * (bottom - 10)
        return x, np.clip(y, 0, bottom)

    marks = []
    runs = ((case.sync, SYNC, "sync", -12), (case.asyn, ASYNC, "async", 22))  # label above, below
    for trace, colour, name, dy in runs:
        keep = trace.time <= t_max
        x, y = xy(trace.time[keep], trace.loss[keep])
        points = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(x, y))
        marks.append(f"<polyline points='{points}' fill='none' stroke='{colour}' "
                     f"stroke-width='2.5'/>")
        hit = trace.time_to_loss(model.target)
        if np.isfinite(hit):
            hx, hy = xy(hit, model.target)
            marks.append(f"<circle cx='{hx:.1f}' cy='{hy:.1f}' r='6' fill='{colour}'/>"
                         f"<text x='{hx + 6:.1f}' y='{hy + dy:.1f}' font-size='13' "
                         f"fill='{colour}'>{name}: t = {hit:.0f}</text>")
    _, target_y = xy(0, model.target)
    decades = range(int(np.ceil(y_lo)), int(np.floor(y_hi)) + 1)
    axes = "".join(f"<text x='4' y='{xy(0, 10.0 ** d)[1] + 4:.1f}' font-size='11'>1e{d}</text>"
                   for d in decades)
    return (f"<svg width='{PLOT_W}' height='{PLOT_H}' font-family='sans-serif'>"
            f"<rect x='{left}' y='10' width='{PLOT_W - left - 10}' height='{bottom - 10}' "
            f"fill='none' stroke='#999'/>{axes}"
            f"<line x1='{left}' x2='{PLOT_W - 10}' y1='{target_y:.1f}' y2='{target_y:.1f}' "
            f"stroke='#777' stroke-dasharray='5,4'/>{''.join(marks)}"
            f"<text x='{left}' y='{PLOT_H - 8}' font-size='12'>0</text>"
            f"<text x='{(left + PLOT_W) / 2:.0f}' y='{PLOT_H - 8}' font-size='12' "
            f"text-anchor='middle'>simulated time</text><text x='{PLOT_W - 10}' "
            f"y='{PLOT_H - 8}' font-size='12' text-anchor='end'>{t_max:.0f}</text>"
            f"<text x='{left + 8}' y='26' font-size='13'>training loss "
            f"<tspan fill='{SYNC}'>&#9632; sync</tspan> <tspan fill='{ASYNC}'>&#9632; async"
            f"</tspan> <tspan fill='#777'>- - target {model.target:g}</tspan></text></svg>")


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
    view = w.VBox([slider, readout, w.HBox([schedules, curves])])
    view.add_class("straggler-view")
    view.slider, view.readout, view.schedules, view.curves = slider, readout, schedules, curves
    return view
