"""One training step on MXNet's profiler timeline: a lane per thread, operators coloured.

The data come from :func:`tutorial.memory.engine_timeline.run` (an ``EngineRun``: the
parsed trace and its steps); this module only draws them. Each lane is a thread: the
Python thread on top (under the synchronous NaiveEngine it runs every operator itself),
then one engine worker per device. Operators are coloured by kind (forward, backward,
communication, update, bookkeeping in grey); under them, on the Python lane, thin bars
show which call the Python thread was in: the forward, ``backward()``,
``trainer.step()`` (issuing the work, or under NaiveEngine doing it), and ``waitall``.
"""

import matplotlib.pyplot as plt
from matplotlib.patches import Patch

from tutorial.memory.engine_timeline import median_step

COLOURS = {"forward": "C0", "backward": "C1", "communication": "C4", "update": "C2",
           "other": "0.7"}
ISSUED = {"forward issued": "forward", "backward() issued": "backward()",
          "trainer.step() issued": "trainer.step()", "waitall": "waitall"}


def draw(ax, engine_run, step=None, title=None):
    """Draw profiled step ``step`` (default: the one of median wall time) on ``ax``."""
    if step is None:
        step = median_step(engine_run)
    if not 0 <= step < len(engine_run.steps):
        raise ValueError(f"step must be in 0..{len(engine_run.steps) - 1} (the profiled "
                         f"steps), got {step!r}")
    trace, span = engine_run.trace, engine_run.steps[step]
    rows = {lane: len(trace.lanes) - 1 - i for i, lane in enumerate(trace.lanes)}
    inside = lambda e: span.start <= e.start <= span.end  # noqa: E731
    for e in filter(inside, trace.events):
        ax.barh(rows[e.lane] + 0.1, e.end - e.start, left=e.start - span.start, height=0.6,
                color=COLOURS[e.kind], linewidth=0)
    top = rows.get(trace.lanes[0], 0) if trace.lanes else 0
    for e in filter(inside, trace.issued):
        ax.barh(top - 0.33, e.end - e.start, left=e.start - span.start, height=0.26,
                color="0.6" if e.name == "waitall" else "0.85", edgecolor="white",
                linewidth=0.5)
        if e.end - e.start > 0.08 * (span.end - span.start):
            ax.text((e.start + e.end) / 2 - span.start, top - 0.33, ISSUED.get(e.name, e.name),
                    ha="center", va="center", fontsize=7, clip_on=True)
    ax.set_yticks(list(rows.values()))
    ax.set_yticklabels(list(rows))
    ax.set_ylim(-0.55, len(rows) - 0.35)
    ax.set_xlim(0, span.end - span.start)
    ax.set_xlabel("ms from the start of the step")
    ax.set_title(title if title is not None else
                 f"{engine_run.engine} engine, step {step}: {engine_run.step_ms[step]:.1f} ms")


def draw_engines(runs, figsize=None):
    """One axis per run (``{"threaded": run, "naive": run}``), on one time axis; the
    figure, with a legend of the kinds."""
    if not runs:
        raise ValueError("runs is empty: pass {engine: EngineRun}, e.g. from "
                         "tutorial.memory.engine_timeline.compare")
    heights = [len(r.trace.lanes) + 1 for r in runs.values()]
    fig, axes = plt.subplots(len(runs), 1, sharex=True, squeeze=False,
                             figsize=figsize or (11, 0.45 * sum(heights) + 1.2),
                             gridspec_kw={"height_ratios": heights})
    for ax, r in zip(axes[:, 0], runs.values()):
        draw(ax, r)
    for ax in axes[:-1, 0]:
        ax.set_xlabel("")
    longest = max(r.steps[median_step(r)].end - r.steps[median_step(r)].start
                  for r in runs.values())
    axes[0, 0].set_xlim(0, longest)
    handles = [Patch(color=c, label=k if k != "other" else "bookkeeping")
               for k, c in COLOURS.items()]
    handles += [Patch(color="0.85", label="Python: in the call"),
                Patch(color="0.6", label="Python: waitall")]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig
