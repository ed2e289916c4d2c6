"""The large-batch sweep, one batch size at a time: where doubling the batch stops paying.

Model: the points of :func:`tutorial.largebatch.sweep.batch_size_sweep` (trained in the
notebook cell, before the widget exists) and the fitted critical batch size of every
target (:func:`tutorial.largebatch.experiments.fit_targets`), computed once by
:func:`sweep_model`. View: :func:`sweep_view`, Play reveals the batch sizes from the
smallest; a toggle picks the target. Each frame draws steps to the target against batch
size on log-log axes, the perfect-scaling line through the first point (steps ~ 1/B)
and, once every point is shown, the fitted S(B) = S_min (1 + B_crit / B). Callbacks only
look points up and draw; nothing trains or fits in them. Sized for 1280x720.

>>> from tutorial.largebatch.sweep import SweepPoint
>>> points = [SweepPoint(b, {0.95: s}, {0.95: 0.1}, False, ())
...           for b, s in ((16, 110), (64, 35), (256, 16.25), (1024, 11.5625))]
>>> model = sweep_model(points, targets=(0.95,))          # S(B) = 10 (1 + 160 / B) exactly
>>> round(model.fits[0.95].b_crit)
160
>>> print(readout_html(model, 0.95, 2).split("<br>")[1])
From batch 16: 4&times; the batch, 3.14&times; fewer steps (perfect scaling: 4&times; fewer).</div>
"""

import dataclasses
from typing import Dict, Optional, Tuple

import numpy as np

from tutorial.largebatch.critical_batch import CriticalBatchFit
from tutorial.largebatch.sweep import SweepPoint
from tutorial.viz.projector import TEXT_PX, text_width
from tutorial.viz.saved_frame import one_mark

WIDTH, HEIGHT, LEFT, BOTTOM = 700, 430, 84, 60     # px: the plot and its axis margins
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728")
SUB = "<sub style='font-size:inherit'>{}</sub>".format     # as large as the text around it
LEGEND = (f"<div style='font:{TEXT_PX}px sans-serif;line-height:1.4;margin-top:0.6em;color:#555'>"
          f"Dashed line: perfect scaling, steps ~ 1/B.<br>Solid line (all batch sizes shown): "
          f"the fit <span style='white-space:nowrap'>S(B) = S{SUB('min')} (1 + B{SUB('crit')} / B)"
          f"</span>.</div>")


@dataclasses.dataclass(frozen=True)
class SweepModel:
    points: Tuple[SweepPoint, ...]                 # by batch size, smallest first
    targets: Tuple[float, ...]
    fits: Dict[float, Optional[CriticalBatchFit]]  # target -> fit (None: too few points)


def sweep_model(points, targets):
    """Sort the points and fit every target once."""
    from tutorial.largebatch.experiments import fit_targets

    points = tuple(sorted(points, key=lambda p: p.batch_size))
    if len(points) < 2:
        raise ValueError(f"a sweep needs at least two batch sizes, got {len(points)}")
    return SweepModel(points, tuple(targets), fit_targets(points, tuple(targets)))


def readout_html(model, target, shown):
    """What the newest shown point says about doubling the batch, and the fit at the end."""
    p = model.points[shown - 1]
    steps = p.steps[target]
    if steps is None:
        said = f"did not reach {target:.0%}"
    else:
        said = (f"{steps} steps to {target:.0%} (best lr {p.best_lr[target]:g}), "
                f"{steps * p.batch_size:,} examples")
    lines = [f"<b>batch {p.batch_size}</b>: {said}."]
    before = model.points[shown - 2] if shown >= 2 else None
    if before is not None and steps and before.steps[target]:
        grow = p.batch_size / before.batch_size
        cut = before.steps[target] / steps
        change = (f"{cut:.2f}&times; fewer steps" if cut >= 1 else
                  f"{1 / cut:.2f}&times; more steps (one run per point: noise)")
        lines.append(f"From batch {before.batch_size}: {grow:.3g}&times; the batch, {change} "
                     f"(perfect scaling: {grow:.3g}&times; fewer).")
    fit = model.fits.get(target)
    if shown == len(model.points) and fit is not None:
        lines.append(f"Fit: S{SUB('min')} = {fit.s_min:.0f} steps, B{SUB('crit')} = "
                     f"{fit.b_crit:.0f}: past B{SUB('crit')} more workers buy few steps.")
    return f"<div style='font:{TEXT_PX}px sans-serif;line-height:1.4'>{'<br>'.join(lines)}</div>"


def _frame(model):
    """Log-log axes shared by every frame and target."""
    B = np.array([p.batch_size for p in model.points], dtype=float)
    S = np.array([s for p in model.points for s in p.steps.values() if s], dtype=float)
    if len(S) == 0:
        S = np.array([1.0, 10.0])
    return (np.log10(B.min() / 1.4), np.log10(B.max() * 1.4),
            np.log10(S.min() / 1.6), np.log10(S.max() * 1.6))


def spread(centres, widths, lo, hi, gap=8):
    """Move label centres as little as it takes for neighbours to keep ``gap`` px apart,
    and every label to stay within ``lo``..``hi``: two close batch sizes keep both labels.

    >>> spread([100, 130, 300], [40, 40, 40], 0, 400)
    [100, 148.0, 300]
    >>> spread([100, 370, 390], [40, 40, 40], 0, 400)
    [100, 332.0, 380.0]
    """
    out, n = list(centres), len(centres)
    apart = [(widths[i] + widths[i + 1]) / 2 + gap for i in range(n - 1)]
    for i in range(n):                           # left to right: push right
        out[i] = max(out[i], out[i - 1] + apart[i - 1] if i else lo + widths[0] / 2)
    for i in reversed(range(n)):                 # right to left: pull back inside
        out[i] = min(out[i], out[i + 1] - apart[i] if i < n - 1 else hi - widths[-1] / 2)
    return out


def sweep_svg(model, target, shown):
    """The first ``shown`` points for ``target``, the 1/B line, and the fit at the end."""
    x_lo, x_hi, y_lo, y_hi = _frame(model)
    colour = COLOURS[model.targets.index(target) % len(COLOURS)]
    axis = HEIGHT - BOTTOM                       # y of the x axis

    def xy(b, s):
        x = LEFT + (np.log10(b) - x_lo) / (x_hi - x_lo) * (WIDTH - LEFT - 10)
        y = 10 + (y_hi - np.log10(s)) / (y_hi - y_lo) * (axis - 10)
        return x, y

    grid = np.geomspace(10 ** x_lo, 10 ** x_hi, 60)
    marks = []
    first = model.points[0]
    if first.steps[target]:
        ideal = first.steps[target] * first.batch_size / grid
        keep = ideal >= 10 ** y_lo
        pts = " ".join("%.1f,%.1f" % xy(b, s) for b, s in zip(grid[keep], ideal[keep]))
        marks.append(f"<polyline points='{pts}' fill='none' stroke='#555' "
                     f"stroke-dasharray='6,5'/>")
    fit = model.fits.get(target)
    if shown == len(model.points) and fit is not None:
        pts = " ".join("%.1f,%.1f" % xy(b, s) for b, s in zip(grid, fit.steps(grid)))
        bx, _ = xy(fit.b_crit, 1.0)
        label = f"B_crit &#8776; {fit.b_crit:.0f}"
        fits_right = bx + 6 + text_width(f"B_crit ~ {fit.b_crit:.0f}") <= WIDTH - 10
        place = f"x='{bx + 6:.1f}'" if fits_right else f"x='{bx - 6:.1f}' text-anchor='end'"
        marks.append(f"<polyline points='{pts}' fill='none' stroke='{colour}' stroke-width='2.5'/>"
                     f"<line x1='{bx:.1f}' x2='{bx:.1f}' y1='10' y2='{axis}' "
                     f"stroke='{colour}' stroke-dasharray='2,4'/>"
                     f"<text {place} y='{10 + 1.2 * TEXT_PX:.0f}' font-size='{TEXT_PX}' "
                     f"fill='{colour}'>{label}</text>")
    for i, p in enumerate(model.points[:shown]):
        if p.steps[target]:
            x, y = xy(p.batch_size, p.steps[target])
            ring = " stroke='black' stroke-width='3'" if i == shown - 1 else ""
            marks.append(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='7' fill='{colour}'{ring}>"
                         f"<title>batch {p.batch_size}: {p.steps[target]} steps</title></circle>")
    ticks = []
    xs = [xy(p.batch_size, 1.0)[0] for p in model.points]
    names = [str(p.batch_size) for p in model.points]
    places = spread(xs, [text_width(n) for n in names], 0, WIDTH)
    for x, at, name in zip(xs, places, names):
        ticks.append(f"<line x1='{x:.1f}' x2='{x:.1f}' y1='{axis}' y2='{axis + 5}' stroke='#999'/>"
                     f"<text x='{at:.1f}' y='{axis + 5 + TEXT_PX}' font-size='{TEXT_PX}' "
                     f"text-anchor='middle'>{name}</text>")
    for s in (10, 20, 50, 100, 200, 500, 1000, 2000):
        if y_lo <= np.log10(s) <= y_hi:
            _, y = xy(1.0, s)
            ticks.append(f"<text x='{LEFT - 8}' y='{y + 0.35 * TEXT_PX:.1f}' font-size='{TEXT_PX}' "
                         f"text-anchor='end'>{s}</text>")
    middle = (10 + axis) / 2
    return (f"<svg width='{WIDTH}' height='{HEIGHT}' font-family='sans-serif'>"
            f"<rect x='{LEFT}' y='10' width='{WIDTH - LEFT - 10}' height='{axis - 10}' "
            f"fill='none' stroke='#999'/>{''.join(ticks)}{''.join(marks)}"
            f"<text x='{(LEFT + WIDTH) / 2:.0f}' y='{HEIGHT - 6}' font-size='{TEXT_PX}' "
            f"text-anchor='middle'>batch size B (log)</text>"
            f"<text x='{TEXT_PX + 2}' y='{middle:.0f}' font-size='{TEXT_PX}' text-anchor='middle' "
            f"transform='rotate(-90 {TEXT_PX + 2} {middle:.0f})'>steps to {target:.0%} (log)</text>"
            f"</svg>")


def sweep_view(model, interval_ms=900):
    """The widget: Play and a slider over the batch sizes, a target toggle, plot, readout."""
    import ipywidgets as w

    n = len(model.points)
    play = w.Play(value=n, min=1, max=n, interval=interval_ms, description="Play")
    shown = w.IntSlider(value=n, min=1, max=n, description="batch sizes shown",
                        style={"description_width": "initial"}, layout=w.Layout(width="380px"))
    w.jslink((play, "value"), (shown, "value"))
    target = w.ToggleButtons(options=[(f"{t:.0%}", t) for t in model.targets],
                             value=model.targets[len(model.targets) // 2],
                             description="target", style={"button_width": "70px"})
    play.add_class("sweep-play")                 # for a browser test to find
    shown.add_class("sweep-shown")
    picture, readout = w.HTML(), w.HTML()

    def draw(*_):                                 # looks points up; never trains or fits
        with picture.hold_sync(), readout.hold_sync():
            picture.value = sweep_svg(model, target.value, shown.value)
            readout.value = readout_html(model, target.value, shown.value)

    for control in (shown, target):
        control.observe(draw, names="value")
    draw()
    side = w.VBox([readout, w.HTML(LEGEND)], layout=w.Layout(width="500px"))
    view = w.VBox([w.HBox([play, shown, target]),
                   w.HBox([picture, side], layout=w.Layout(flex_flow="row wrap"))])
    view.add_class("sweep-view")
    view.controls = dict(play=play, shown=shown, target=target)
    view.picture, view.readout = picture, readout
    return one_mark(view)
