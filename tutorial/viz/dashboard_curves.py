"""The dashboard's curves: loss, accuracy, throughput and the split of step time, per step.

Drawing only, from the reports the training thread sent. Throughput is shown as a
median over the last :data:`WINDOW` steps: one step's samples/s swings by 30x on a
shared CPU (a step that waits for the kernel, or for this very figure to be drawn,
looks slow; the next looks fast), while the median says what a step typically takes.
Legends sit above their axes, never on the data. The figure is drawn at the size a 1280x720
projector shows it, every text :data:`TEXT_PX` high there (in a notebook it scales to the
page's width); every panel's x axis is the training step.

>>> windowed_median([10, 1000, 12, 11, 900, 13], window=3)
[10.0, 505.0, 12.0, 12.0, 12.0, 13.0]
"""

import io

import numpy as np

from tutorial.viz.projector import TEXT_PX

WINDOW = 21                   # steps in the throughput's running median (odd: a real step)
DPI = 100
SIZE_PX = (1160, 250)         # the slide's width but RISE's arrows; the height left


def text_points(px=TEXT_PX):
    """Matplotlib font size (points) of text ``px`` pixels high at :data:`DPI`."""
    return px * 72 / DPI


def windowed_median(values, window=WINDOW):
    """Median of each value and the ``window - 1`` before it (fewer at the start)."""
    values = np.asarray(values, float)
    return [float(np.median(values[max(0, i + 1 - window):i + 1])) for i in range(len(values))]


def curves_figure(reports):
    """A matplotlib Figure (no pyplot) of the reports so far: four panels in a row.

    One strip, not a 2x2 grid: under the deck's controls it must stay short (the slide ends
    on a 720 px screen), and a strip that short is still wide enough to read. No x label:
    the axes are steps, as the summary line above says ("step 200/200").
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    fig = Figure(figsize=(SIZE_PX[0] / DPI, SIZE_PX[1] / DPI), dpi=DPI, layout="constrained")
    fig.get_layout_engine().set(w_pad=0.02, h_pad=0.02, wspace=0.06)
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 4)
    steps = [r.step for r in reports]
    for ax, values, title in ((axes[0], [r.loss for r in reports], "training loss"),
                              (axes[1], [r.accuracy for r in reports],
                               "accuracy (this batch)")):
        ax.plot(steps, values, lw=1.2)
        ax.set_title(title, fontsize=text_points(), loc="left",
                     pad=text_points(2.2 * TEXT_PX))              # level with the others
    ax = axes[2]
    rate = [r.samples_per_s for r in reports]
    typical = windowed_median(rate)
    ax.plot(steps, rate, ".", ms=2, color="0.7", label="step")
    ax.plot(steps, typical, lw=1.6, color="tab:blue", label="median")
    ax.set_ylim(0, 1.6 * max(typical))          # a freak step would squash the rest
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1000:g}k" if v else "0"))
    _legend_above(ax, "samples / s")
    ax = axes[3]
    ms = {name: [1e3 * getattr(r, f"{field}_s") for r in reports]
          for name, field in (("compute", "compute"), ("sum", "aggregate"), ("update", "update"))}
    ax.stackplot(steps, *ms.values(), labels=list(ms))
    ax.set_ylim(0, 2.5 * np.median([1e3 * r.total_s for r in reports]))   # the warm-up
    _legend_above(ax, "ms per step")
    for ax in axes:
        ax.set_xlim(0, max(10, steps[-1]))
        ax.tick_params(labelsize=text_points())
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.yaxis.set_major_locator(MaxNLocator(4))
    return fig


def _legend_above(ax, title):
    """The legend in a row just above the axes, the title above it: off the data."""
    ax.set_title(title, fontsize=text_points(), loc="left",
                 pad=text_points(2.2 * TEXT_PX))                  # above the legend's row
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=3, fontsize=text_points(),
              frameon=False, borderaxespad=0.1, handlelength=1.0, handletextpad=0.4,
              columnspacing=0.8)


def curves_png(reports):
    """PNG bytes of :func:`curves_figure`."""
    buffer = io.BytesIO()
    curves_figure(reports).savefig(buffer, format="png")
    return buffer.getvalue()
