"""What the dashboard shows, run after run: the device sentence once, no broken image
before the first run, a throughput that one odd step does not move, legends off the data."""

import mxnet as mx
from matplotlib.text import Text

from tutorial.devices import describe
from tutorial.parallel.reports import StepReport
from tutorial.viz.dashboard import TrainingDashboard, summary_html
from tutorial.viz.dashboard_curves import WINDOW, curves_figure, windowed_median

TWO = [mx.cpu(0), mx.cpu(1)]


def _short_run(view):
    run = view.start(devices=TWO)
    assert run is not None and run.join(timeout=120)


def test_the_device_sentence_shows_once_however_often_run_is_pressed():
    view = TrainingDashboard(max_devices=2)
    view.batch.value, view.steps.value = 8, 10
    assert describe(TWO) not in view.where.value           # nothing has run yet
    _short_run(view)
    _short_run(view)
    assert view.where.value.count(describe(TWO)) == 1
    view.batch.value = 16                                    # the settings line still updates
    assert "total batch 32" in view.where.value and view.where.value.count(describe(TWO)) == 1


def test_the_figure_is_hidden_until_there_is_one_to_show():
    view = TrainingDashboard(max_devices=2)
    assert view.figure.layout.display == "none" and view.figure.value == b""
    view.batch.value, view.steps.value = 8, 10
    _short_run(view)
    assert view.figure.layout.display is None and view.figure.value[:4] == b"\x89PNG"


def _reports(rates, samples=64):
    return [StepReport(step=i + 1, samples=samples, loss=1.0, accuracy=0.5,
                       compute_s=0.5 * samples / r, aggregate_s=0.3 * samples / r,
                       update_s=0.2 * samples / r, total_s=samples / r)
            for i, r in enumerate(rates)]


SWINGING = [41_000, 41_000, 1_200] * 20          # a slow step every third, as on a busy CPU


def test_throughput_is_the_median_of_the_last_steps_not_the_last_step():
    reports = _reports(SWINGING)
    assert reports[-1].samples_per_s == 1_200
    shown = summary_html(reports, type("Config", (), {"steps": 60}))
    assert f"41,000 samples/s (median of the last {WINDOW} steps)" in shown
    assert set(windowed_median(SWINGING)[WINDOW:]) == {41_000.0}


def test_legends_sit_off_the_data():
    fig = curves_figure(_reports(SWINGING))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    assert len(legends) == 2                              # throughput and the time split
    for legend in legends:
        box, own = legend.get_window_extent(renderer), set(legend.findobj(Text))
        for ax in fig.axes:
            assert not box.overlaps(ax.get_window_extent(renderer)), "a legend covers data"
            for text in ax.findobj(Text):               # titles, labels, tick labels
                if text.get_text() and text not in own:
                    assert not box.overlaps(text.get_window_extent(renderer)), text


def test_every_text_is_projector_size_at_the_size_drawn():
    """The deck shows the figure at its natural size: every text TEXT_PX high or more."""
    from tutorial.viz.dashboard_curves import DPI, SIZE_PX, TEXT_PX

    fig = curves_figure(_reports(SWINGING))
    fig.canvas.draw()
    assert tuple(round(v) for v in fig.get_size_inches() * DPI) == SIZE_PX
    shown = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert len(shown) > 20                          # titles, legends and tick labels
    assert [(t.get_text(), t.get_fontsize() * DPI / 72) for t in shown
            if t.get_fontsize() * DPI / 72 < TEXT_PX - 1e-6] == []
