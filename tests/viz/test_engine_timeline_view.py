"""The engine timeline's drawing (tutorial/viz/engine_timeline.py) draws the parsed data
only: one bar per operator of the step on its thread's lane, in its kind's colour, and the
Python thread's tasks under its lane; no subprocess, a hand-made run."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from tutorial.memory import profiler_trace as pt  # noqa: E402
from tutorial.memory.engine_timeline import EngineRun  # noqa: E402
from tutorial.viz import engine_timeline as view  # noqa: E402

E = pt.Event
TRACE = pt.Trace(
    events=(E("FullyConnected", "forward", "engine thread 1 (cpu(0))", "cpu(0)", 0.5, 1.0),
            E("_backward_FullyConnected", "backward", "engine thread 2 (cpu(1))", "cpu(1)",
              2.0, 5.0),
            E("CopyCPU2CPU", "communication", "engine thread 1 (cpu(0))", "cpu(0)", 4.0, 6.0),
            E("sgd_update", "update", "engine thread 1 (cpu(0))", "cpu(0)", 6.0, 7.0),
            E("FullyConnected", "forward", "engine thread 1 (cpu(0))", "cpu(0)", 20.5, 21.0)),
    lanes=("Python thread", "engine thread 1 (cpu(0))", "engine thread 2 (cpu(1))"),
    steps=((0.0, 10.0), (20.0, 22.0)),
    issued=(E("backward() issued", "python", "Python thread", "", 1.0, 2.0),
            E("waitall", "python", "Python thread", "", 7.0, 10.0)))
RUN = EngineRun("threaded", ("cpu(0)", "cpu(1)"), (8,), 8, False, (10.0, 2.0), (1.0, 0.9),
                "t.json", TRACE, tuple(pt.steps(TRACE)))


def bars(ax):
    return [(round(p.get_x(), 6), round(p.get_width(), 6), round(p.get_y() + p.get_height() / 2, 6),
             p.get_facecolor()) for p in ax.patches]


def test_one_bar_per_operator_of_the_step_on_its_lane_in_its_kinds_colour():
    fig, ax = plt.subplots()
    view.draw(ax, RUN, step=0)
    drawn = bars(ax)
    row = {"Python thread": 2, "engine thread 1 (cpu(0))": 1, "engine thread 2 (cpu(1))": 0}
    ops = [(e.start, e.end - e.start, row[e.lane] + 0.1, to_rgba(view.COLOURS[e.kind]))
           for e in TRACE.events[:4]]                          # the fifth is in step 1
    assert drawn[:4] == [(round(a, 6), round(w, 6), round(y, 6), c) for a, w, y, c in ops]
    assert [(x, w, y) for x, w, y, _ in drawn[4:]] == [(1.0, 1.0, 1.67), (7.0, 3.0, 1.67)]
    assert [t.get_text() for t in ax.get_yticklabels()] == list(row)
    assert ax.get_xlim() == (0.0, 10.0)
    plt.close(fig)


def test_the_median_step_is_drawn_by_default_and_a_bad_step_is_refused():
    fig, ax = plt.subplots()
    view.draw(ax, RUN)                        # step times 10 and 2 ms: the lower middle, 1
    assert len(ax.patches) == 1 and ax.patches[0].get_x() == pytest.approx(0.5)
    assert ax.get_title() == "threaded engine, step 1: 2.0 ms"
    with pytest.raises(ValueError, match=r"step must be in 0..1"):
        view.draw(ax, RUN, step=2)
    plt.close(fig)


def test_both_engines_on_one_time_axis_with_a_legend():
    fig = view.draw_engines({"threaded": RUN, "naive": RUN._replace(engine="naive")})
    assert len(fig.axes) == 2 and fig.axes[0].get_xlim() == fig.axes[1].get_xlim()
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[:4] == ["forward", "backward", "communication", "update"]
    plt.close(fig)
    with pytest.raises(ValueError, match="runs is empty"):
        view.draw_engines({})
