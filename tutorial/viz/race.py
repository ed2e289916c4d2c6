"""Optimizer race: several optimizers start together on a 2-D surface; watch who gets
to the minimum, and how the learning rate and momentum change the race.

The model is pure and computed once: :func:`race_model` runs every racer for every
(learning rate, momentum) pair on the sliders' grid and keeps the paths. The view
(:func:`race`) only draws: a Play button jslink'ed to a frame slider, sliders for lr and
momentum, and two SVG layers in one grid cell: the contours, drawn once, and above them
the paths, rebuilt from the stored points at each frame (so a frame sends only the
paths to the browser). Callbacks look paths up; they never run an optimizer.

>>> import mxnet as mx
>>> racers = (Racer("GD", "sgd"), Racer("Momentum", "sgd", momentum_key="momentum"))
>>> model = race_model("ill_conditioned", racers, lrs=(0.1, 0.5), momentums=(0.0, 0.9),
...                    steps=20, make=mx.optimizer.create)
>>> frame(model, lr=0.5, momentum=0.9, step=20).shape      # (racers, points, xy)
(2, 21, 2)
>>> model.calls          # GD ignores momentum, so it runs once per lr: 2 + 2 * 2
6
"""

import dataclasses
import html
from typing import Optional, Tuple

import numpy as np

from tutorial.optim import trajectories
from tutorial.validate import check_count, check_range
from tutorial.viz.saved_frame import one_mark

COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


@dataclasses.dataclass(frozen=True)
class Racer:
    """One optimizer in the race: a label, a ``tutorial.optim`` name, and which of its
    keyword arguments the momentum slider sets (None: it has no momentum)."""
    label: str
    name: str
    momentum_key: Optional[str] = None
    lr_scale: float = 1.0           # e.g. Adam's step is ~lr whatever the gradient size
    settings: Tuple[Tuple[str, float], ...] = ()


DEFAULT_RACERS = (
    Racer("GD", "sgd"),
    Racer("Momentum", "sgd", momentum_key="momentum"),
    Racer("Nesterov", "nag", momentum_key="momentum"),
    Racer("Adam", "adam", momentum_key="beta1", lr_scale=0.5),
)


@dataclasses.dataclass(frozen=True)
class RaceModel:
    surface: object
    racers: tuple
    lrs: tuple
    momentums: tuple
    steps: int
    paths: dict        # (lr index, momentum index) -> (racers, steps + 1, 2), padded
    diverged: dict     # (lr index, momentum index) -> tuple of bools, one per racer
    final_loss: dict   # (lr index, momentum index) -> tuple of floats (nan if diverged)
    calls: int         # how many optimizer runs it took to build


def race_model(surface, racers=DEFAULT_RACERS, lrs=(0.05, 0.1, 0.2, 0.4, 0.8),
               momentums=(0.0, 0.5, 0.8, 0.9, 0.95), steps=60, make=None,
               runner=trajectories.run):
    """Run every racer at every (lr, momentum) of the grid once; return the frames.

    ``make(name, **kwargs)`` builds an optimizer (default ``tutorial.optim.create``);
    ``runner`` is :func:`tutorial.optim.trajectories.run` (tests pass a counting one).
    """
    surface = trajectories.surface_named(surface)
    if not racers or not lrs or not momentums:
        raise ValueError("a race needs at least one racer, one lr and one momentum")
    steps = check_count("steps", steps)
    for i, lr in enumerate(lrs):
        check_range(f"lrs[{i}]", lr, 0.0, low_open=True)
    for j, mu in enumerate(momentums):
        check_range(f"momentums[{j}]", mu, 0.0, 1.0, high_open=True)
    if make is None:
        from tutorial import optim
        make = optim.create
    lrs, momentums = tuple(float(v) for v in lrs), tuple(float(v) for v in momentums)
    cache, paths, diverged, final = {}, {}, {}, {}
    for i, lr in enumerate(lrs):
        for j, mu in enumerate(momentums):
            runs = []
            for racer in racers:
                key = (racer, lr, mu if racer.momentum_key else None)
                if key not in cache:
                    kw = dict(racer.settings, learning_rate=lr * racer.lr_scale)
                    if racer.momentum_key:
                        kw[racer.momentum_key] = mu
                    cache[key] = runner(surface, make(racer.name, **kw), steps)
                runs.append(cache[key])
            paths[i, j] = np.stack([trajectories.padded(p, steps + 1) for p in runs])
            diverged[i, j] = tuple(p.diverged for p in runs)
            final[i, j] = tuple(float("nan") if p.diverged else p.final_loss for p in runs)
    return RaceModel(surface, tuple(racers), lrs, momentums, steps, paths, diverged, final,
                     len(cache))


def _index(values, value, what):
    for i, v in enumerate(values):
        if np.isclose(v, value):
            return i
    raise ValueError(f"{what}={value} is not on the race grid {values}")


def frame(model, lr, momentum, step):
    """Points of every racer up to ``step``: (racers, step + 1, 2). A pure look-up."""
    key = (_index(model.lrs, lr, "lr"), _index(model.momentums, momentum, "momentum"))
    if not 0 <= step <= model.steps:
        raise ValueError(f"step must lie in 0..{model.steps}, got {step}")
    return model.paths[key][:, :step + 1]


class _Canvas:
    """Maps surface coordinates to SVG pixels and draws the contours once."""

    def __init__(self, surface, width=520, levels=14):
        self.x0, self.x1, self.y0, self.y1 = surface.window
        self.width = width
        self.height = int(width * (self.y1 - self.y0) / (self.x1 - self.x0))
        self.background = self._contours(surface, levels)

    def pixels(self, pts):
        px = (pts[..., 0] - self.x0) / (self.x1 - self.x0) * self.width
        py = (self.y1 - pts[..., 1]) / (self.y1 - self.y0) * self.height
        return np.clip(np.stack([px, py], axis=-1), -50, self.width + 50).round(1)

    def _contours(self, surface, levels):
        import contourpy
        xs = np.linspace(self.x0, self.x1, 160)
        ys = np.linspace(self.y0, self.y1, 120)
        X, Y = np.meshgrid(xs, ys)
        Z = surface.value(X, Y)
        gen = contourpy.contour_generator(X, Y, Z)
        out = []
        for level in np.unique(np.quantile(Z, np.linspace(0.01, 0.85, levels) ** 2)):
            for line in gen.lines(level):
                pts = " ".join(f"{a:.1f},{b:.1f}" for a, b in self.pixels(line[::2]))
                out.append(f"<polyline points='{pts}' fill='none' stroke='#bbb'/>")
        for m in surface.minima:
            cx, cy = self.pixels(np.array(m))
            out.append(f"<text x='{cx - 5:.1f}' y='{cy + 5:.1f}' fill='#555'>★</text>")
        return "".join(out)

    def _svg(self, marks):
        return (f"<svg width='{self.width}' height='{self.height}' style='display:block'>"
                f"{marks}</svg>")

    def contours_svg(self):
        """The layer drawn once: contour lines and the minima."""
        return self._svg(self.background)

    def paths_svg(self, model, pts):
        """The layer drawn every frame: each racer's path and its head."""
        marks = []
        for racer, colour, path in zip(model.racers, COLOURS * 4, self.pixels(pts)):
            line = " ".join(f"{a:.1f},{b:.1f}" for a, b in path)
            head = path[-1]
            marks.append(f"<polyline points='{line}' fill='none' stroke='{colour}' "
                         f"stroke-width='2' opacity='0.85'/>"
                         f"<circle cx='{head[0]:.1f}' cy='{head[1]:.1f}' r='5' "
                         f"fill='{colour}'><title>{html.escape(racer.label)}</title></circle>")
        return self._svg("".join(marks))


def legend(model, i, j):
    """One HTML line per racer: its colour, label and final loss at grid cell (i, j)."""
    rows = []
    for racer, colour, bad, loss in zip(model.racers, COLOURS * 4, model.diverged[i, j],
                                        model.final_loss[i, j]):
        result = "diverged" if bad else f"loss after {model.steps} steps: {loss:.3g}"
        rows.append(f"<span style='color:{colour}'>&#9632; <b>{html.escape(racer.label)}"
                    f"</b></span> {result}")
    return "<br>".join(rows)


def race(model, interval_ms=80):
    """The widget: contours with paths, Play + frame slider, lr and momentum sliders."""
    import ipywidgets as w

    canvas = _Canvas(model.surface)
    contours, picture, key = w.HTML(canvas.contours_svg()), w.HTML(), w.HTML()
    for layer in (contours, picture):             # one grid cell: the paths over the contours
        layer.layout.grid_area = "canvas"
    layers = w.GridBox([contours, picture], layout=w.Layout(
        grid_template_areas='"canvas"', width=f"{canvas.width + 2}px",
        border="1px solid #ddd"))
    play = w.Play(value=model.steps, min=0, max=model.steps, step=1, interval=interval_ms)
    step = w.IntSlider(value=model.steps, min=0, max=model.steps, description="step")
    w.jslink((play, "value"), (step, "value"))
    play.add_class("race-play")             # for a browser test to find
    step.add_class("race-step")
    layers.add_class("race-canvas")         # the deck's stylesheet scales these up
    key.add_class("race-key")
    lr = w.SelectionSlider(options=model.lrs, value=model.lrs[len(model.lrs) // 2],
                           description="lr", style={"description_width": "initial"})
    mom = w.SelectionSlider(options=model.momentums,   # start where momentum differs from GD
                            value=model.momentums[len(model.momentums) // 2],
                            description="momentum", style={"description_width": "initial"})

    def draw(_=None):
        i, j = model.lrs.index(lr.value), model.momentums.index(mom.value)
        with picture.hold_sync(), key.hold_sync():
            picture.value = canvas.paths_svg(model, model.paths[i, j][:, :step.value + 1])
            key.value = legend(model, i, j)

    for control in (step, lr, mom):
        control.observe(draw, names="value")
    draw()
    title = w.HTML(f"<b>{html.escape(model.surface.about)}</b>")
    widget = w.VBox([title, w.HBox([layers, key]), w.HBox([play, step]), w.HBox([lr, mom])])
    widget.contours, widget.picture = contours, picture
    return one_mark(widget)
