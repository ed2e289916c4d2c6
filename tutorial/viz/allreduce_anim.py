"""Animated allreduce: the four algorithms' schedules, step by step, under a running clock.

Model (pure, computed once): :func:`build_model` replays every schedule for every node
count into :class:`Frames` (who has contributed to each chunk of each node, and the
partial sums when node i starts with i + 1). :func:`clocks` prices the same schedules
under the alpha-beta model (:mod:`tutorial.parallel.costmodel`).
View: :func:`allreduce_animation` draws the frames. Moving the step slider or pressing
Play only looks frames up; changing the node count, latency, bandwidth, size or the
straggler re-prices the clock (a few NumPy sums), never the frames.

>>> model = build_model(("tree",), node_counts=(7,))
>>> f = model[("tree", 7)]
>>> f.sums[:, :, 0].tolist()[1:3]
[[1, 2, 3, 4, 8, 13, 7], [1, 2, 3, 4, 8, 13, 28]]
>>> [round(float(t) * 1e3, 3) for t in clocks(f, alpha=1e-3, beta=0.0)]
[0.0, 2.0, 4.0, 6.0, 8.0]
"""

import dataclasses
import html
from typing import Tuple

import numpy as np

from tutorial.parallel import costmodel
from tutorial.parallel.collectives import contributions, schedule
from tutorial.viz.saved_frame import one_mark

ALGORITHMS = costmodel.ALGORITHMS      # one list of names: the cost model's
EVEN_LENGTH = 720720          # divisible by 1..16: every ring chunk has the same size


@dataclasses.dataclass(frozen=True)
class Frames:
    """Everything the view draws for one algorithm and one node count."""
    plan: object                       # the Schedule the frames replay
    counts: np.ndarray                 # (steps + 1, nodes, chunks): sources summed in so far
    sums: np.ndarray                   # (steps + 1, nodes, chunks): partial sums, node i holds i + 1
    captions: Tuple[str, ...]          # per frame: the step's phase and transfers

    @property
    def num_steps(self):
        return len(self.plan.steps)


def _caption(step, chunked):
    moves = ", ".join(f"{t.source}\u2192{t.destination}" + (f" c{t.chunk}" if chunked else "")
                      + (" +" if t.op == "add" else " =") for t in step.transfers[:8])
    more = f" \u2026 ({len(step.transfers)} transfers)" if len(step.transfers) > 8 else ""
    return f"{step.phase}: {moves}{more}"


def build_frames(plan):
    """Replay ``plan`` once into :class:`Frames`."""
    counts = contributions(plan)                          # (steps+1, nodes, chunks, sources)
    start = np.arange(1, plan.num_nodes + 1)
    return Frames(plan, counts.sum(axis=3), counts @ start,
                  ("start: node i holds i + 1",) + tuple(_caption(s, len(plan.chunks) > 1) for s in plan.steps))


def build_model(algorithms=ALGORITHMS, node_counts=range(2, 17), length=EVEN_LENGTH,
                itemsize=4):
    """Frames for every (algorithm, node count), computed once: {(algorithm, n): Frames}."""
    return {(a, n): build_frames(schedule(a, n, length, itemsize))
            for a in algorithms for n in node_counts}


def clocks(frames, alpha, beta, gamma=0.0, nbytes=None, slow_node=None, slowdown=1.0):
    """Model time at each frame (seconds, 0 first) for arrays of ``nbytes`` per node."""
    scale = 1.0 if nbytes is None else nbytes / frames.plan.nbytes
    times = costmodel.step_times(frames.plan, alpha, beta * scale, gamma * scale,
                                 slow_node, slowdown)
    return np.concatenate([[0.0], np.cumsum(times)])


def _colour(count, n):
    if count == n:
        return "hsl(130,50%,58%)"                         # complete: the full sum
    return f"hsl(210,70%,{int(96 - 48 * count / n)}%)"    # darker as more nodes combine


def render(frames, k, clock, slow_node=None):
    """HTML of frame ``k`` of one algorithm (a table: nodes x chunks)."""
    k = min(k, frames.num_steps)
    n, chunks = frames.sums.shape[1:]
    changed = np.zeros((n, chunks), bool) if k == 0 else \
        (frames.counts[k] != frames.counts[k - 1])
    cell = "width:{w}px;height:16px;text-align:center;font:11px monospace;background:{bg};{edge}"
    rows = []
    for node in range(n):
        label = f"{node}{' (slow)' if node == slow_node else ''}"
        tds = "".join(
            f"<td style='{cell.format(w=max(22, 200 // chunks), bg=_colour(frames.counts[k, node, c], n), edge='box-shadow:inset 0 0 0 2px #d35400;' if changed[node, c] else '')}'>"
            f"{frames.sums[k, node, c]}</td>" for c in range(chunks))
        rows.append(f"<tr><td style='font:11px monospace;padding-right:4px'>{label}</td>{tds}</tr>")
    title = html.escape(frames.plan.algorithm)
    width = max(240, chunks * 26 + 40)
    return (f"<div class='allreduce-frame' data-algorithm='{title}' data-step='{k}' "
            f"style='width:{width}px;margin-right:12px'>"
            f"<b>{title}</b><br>step {k}/{frames.num_steps} &nbsp; "
            f"t = {clock[k] * 1e3:.3f} ms<br>"
            f"<div style='height:4.2em;overflow:hidden;font-size:11px;line-height:1.4em'>"
            f"{html.escape(frames.captions[k])}</div>"
            f"<table style='border-collapse:separate;border-spacing:1px'>{''.join(rows)}</table>"
            f"</div>")


def _controls(counts, nodes):
    """The animation's controls: what to show, the step (Play), the clock's parameters."""
    import ipywidgets as w

    c = dict(
        pick=w.Dropdown(options=["all four"], value="all four", description="algorithm"),
        nodes=w.IntSlider(value=nodes, min=counts[0], max=counts[-1], description="nodes"),
        step=w.IntSlider(value=0, min=0, max=1, description="step"),
        play=w.Play(value=0, min=0, max=1, interval=700, description="Play the allreduce"),
        latency=w.FloatLogSlider(value=10, base=10, min=-1, max=3, description="latency \u00b5s"),
        bandwidth=w.FloatLogSlider(value=10, base=10, min=-1, max=2, description="GB/s"),
        size=w.FloatLogSlider(value=10, base=10, min=-3, max=3, description="MB / node"),
        slow=w.Dropdown(options=[("none", -1)] + [(str(i), i) for i in range(counts[-1])],
                        value=-1, description="slow node"),
        slowdown=w.FloatSlider(value=4, min=1, max=10, step=0.5, description="slowdown"))
    c["step"].add_class("allreduce-step")
    c["play"].add_class("allreduce-play")
    w.jslink((c["play"], "value"), (c["step"], "value"))
    w.jslink((c["play"], "max"), (c["step"], "max"))
    return c


class _ChunkTables:
    """The view's state and its three callbacks; they look frames up, never replay them."""

    def __init__(self, model, algorithms, controls, panels):
        import ipywidgets as w

        self.model, self.algorithms, self.c, self.panels = model, algorithms, controls, panels
        self.views = {a: w.HTML() for a in algorithms}    # built once; draw() sets values
        self.clock = {}                                   # the clocks of the frames shown

    def shown(self):
        pick = self.c["pick"].value
        return self.algorithms if pick == "all four" else [pick]

    def frames(self, algorithm):
        return self.model[(algorithm, self.c["nodes"].value)]

    def slow_node(self):
        slow = self.c["slow"].value
        return slow if 0 <= slow < self.c["nodes"].value else None

    def draw(self, *_):
        for a in self.shown():
            self.views[a].value = render(self.frames(a), self.c["step"].value, self.clock[a],
                                         self.slow_node())

    def price(self):                             # the clock only: a few NumPy sums
        c = self.c
        for a in self.shown():
            self.clock[a] = clocks(self.frames(a), c["latency"].value * 1e-6,
                                   1 / (c["bandwidth"].value * 1e9), nbytes=c["size"].value * 1e6,
                                   slow_node=self.slow_node(), slowdown=c["slowdown"].value)

    def reprice(self, *_):
        self.price()
        self.draw()

    def resize(self, *_):
        self.price()
        self.panels.children = [self.views[a] for a in self.shown()]
        last = max(self.frames(a).num_steps for a in self.shown())
        self.c["play"].value = self.c["step"].value = 0
        self.c["play"].max = self.c["step"].max = max(last, 1)
        self.draw()


LEGEND = ("<small>Cells: each node's copy of each chunk, showing the partial sum (node i "
          "starts with i + 1). Blue darkens as more nodes are summed in; green is the full "
          "sum; an orange edge marks what changed in this step. Clock: the alpha-beta model, "
          "one message at a time per node and direction; links to the slow node are "
          "'slowdown' times slower.</small>")


def allreduce_animation(model=None, nodes=7):
    """The widget: algorithm picker, Play + step slider, node count, alpha-beta sliders."""
    import ipywidgets as w

    model = build_model() if model is None else model
    algorithms = sorted({a for a, _ in model}, key=ALGORITHMS.index)
    counts = sorted({n for _, n in model})
    if nodes not in counts:
        raise ValueError(f"nodes={nodes!r} has no frames: choose from {counts[0]} to "
                         f"{counts[-1]}, or build the model with that node count")
    c = _controls(counts, nodes)
    c["pick"].options = ["all four"] + algorithms
    panels = w.HBox()
    view = _ChunkTables(model, algorithms, c, panels)
    for name in ("latency", "bandwidth", "size", "slow", "slowdown"):
        c[name].observe(view.reprice, "value")
    for name in ("pick", "nodes"):
        c[name].observe(view.resize, "value")
    c["step"].observe(view.draw, "value")
    view.resize()
    rows = [("pick", "nodes"), ("play", "step"), ("latency", "bandwidth", "size"),
            ("slow", "slowdown")]
    widget = w.VBox([w.HBox([c[name] for name in row]) for row in rows]
                    + [panels, w.HTML(LEGEND)])
    widget.controls = c
    widget.panels = panels
    return one_mark(widget)
