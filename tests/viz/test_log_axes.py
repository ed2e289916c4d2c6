"""Log axes in notebooks 11 and 12 show several labelled ticks, not one ``10^1``
(tutorial/viz/log_axes.py); reference: matplotlib's own default, which labels only the
powers of ten."""

import types

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from tutorial.largebatch import plots  # noqa: E402
from tutorial.viz.log_axes import readable_log_axis  # noqa: E402


def _labels_in_view(axis):
    low, high = sorted(axis.get_view_interval())
    return [t.get_text() for t in axis.get_ticklabels()
            if t.get_text() and low <= t.get_position()[axis is axis.axes.yaxis] <= high]


def test_a_range_inside_one_decade_gets_several_plain_labels():
    fig, (default, readable) = plt.subplots(1, 2)
    for ax in (default, readable):
        ax.semilogx([8, 64], [0, 1])
    readable_log_axis(readable.xaxis)
    fig.canvas.draw()
    assert len(_labels_in_view(default.xaxis)) <= 1          # what the notebooks showed
    assert _labels_in_view(readable.xaxis) == ["10", "20", "50"]
    plt.close(fig)


def test_notebook_11s_accuracy_curves_have_readable_steps():
    run = types.SimpleNamespace(evals=[(12, 0.3), (25, 0.5), (60, 0.7)])
    ax = plots.plan_curves([types.SimpleNamespace(run=run, label="plan", steps=60)])
    ax.figure.canvas.draw()
    assert _labels_in_view(ax.xaxis) == ["20", "50"]          # matplotlib alone: none
    plt.close(ax.figure)
