"""Live data-parallel training dashboard: controls, Run/Stop, curves. The view only draws.

Training happens in ``tutorial.parallel.live``: Run builds a ``RunConfig`` from the
controls and starts a ``BackgroundRun`` (a thread), whose reports arrive in
:meth:`TrainingDashboard.draw_report`. Why a thread: while a button callback runs, the
kernel is busy and cannot receive the Stop click; a callback that only starts a thread
returns at once. Widget updates sent from that thread reach JupyterLab like any other.
The curves (:mod:`tutorial.viz.dashboard_curves`) are one matplotlib figure redrawn into an
``Image`` at most a few times a second (no pyplot, so no figure piles up in the notebook);
the ``Image`` stays hidden until there is a first figure, so no broken-image icon shows.
The line under the controls says what the settings give, then where the last run trained.

>>> view = TrainingDashboard(max_devices=4)
>>> view.devices.max, view.config().total_batch
(4, 64)
"""

import html
import time

import ipywidgets as w

from tutorial.devices import describe, training_devices, try_all_gpus
from tutorial.parallel.aggregation import AGGREGATIONS
from tutorial.parallel.live import RunConfig, live_training
from tutorial.viz.dashboard_curves import WINDOW, curves_png, windowed_median
from tutorial.viz.run_buttons import RunButtons
from tutorial.viz.saved_frame import one_mark

REDRAW_EVERY_S = 0.3


def summary_html(reports, config):
    """One line with the last step's numbers, the typical throughput (the median over the
    last steps, which one slow or fast step does not move) and the average time split."""
    if not reports:
        return "<i>not started</i>"
    last = reports[-1]
    rate = windowed_median([r.samples_per_s for r in reports[-WINDOW:]])[-1]
    compute = sum(r.compute_s for r in reports) / len(reports)
    aggregate = sum(r.aggregate_s for r in reports) / len(reports)
    return (f"step {last.step}/{config.steps} &middot; loss {last.loss:.3f} &middot; "
            f"accuracy {last.accuracy:.2f} &middot; {rate:,.0f} samples/s (median of the "
            f"last {min(WINDOW, len(reports))} steps) &middot; per step: compute "
            f"{1e3 * compute:.1f} ms, aggregation {1e3 * aggregate:.1f} ms")


class TrainingDashboard:
    """The widget. ``max_devices`` defaults to the usable GPUs, or 8 virtual devices."""

    def __init__(self, max_devices=None, aggregations=AGGREGATIONS, base_lr=0.1, base_batch=32):
        gpus = try_all_gpus() if max_devices is None else []
        self.max_devices = max_devices or (len(gpus) if gpus else 8)
        self.base_lr, self.base_batch = base_lr, base_batch
        style = {"description_width": "initial"}
        self.devices = w.IntSlider(value=min(2, self.max_devices), min=1, max=self.max_devices,
                                   description="devices", style=style)
        self.batch = w.Dropdown(options=[2 ** i for i in range(0, 9)], value=32,
                                description="per-device batch", style=style)
        self.rule = w.ToggleButtons(options=["none", "linear", "sqrt"], value="linear",
                                    description="lr scaling", style=style)
        self.aggregation = w.Dropdown(options=list(aggregations), value=aggregations[0],
                                      description="aggregation", style=style)
        self.steps = w.IntSlider(value=200, min=10, max=2000, step=10, description="steps",
                                 style=style)
        self.buttons = RunButtons("Run")
        self.run_button, self.stop_button = self.buttons.start_button, self.buttons.stop_button
        self.progress = w.IntProgress(value=0, min=0, max=1, description="progress")
        self.where = w.HTML()
        self.summary = w.HTML(summary_html([], None))
        self.figure = w.Image(format="png", layout=w.Layout(display="none"))  # until drawn
        for widget, name in ((self.run_button, "run"), (self.stop_button, "stop"),
                             (self.progress, "progress"), (self.summary, "summary"),
                             (self.figure, "figure"), (self.where, "where")):
            widget.add_class(f"dp-dashboard-{name}")       # for a browser test to find
        self.buttons.on_start(self.start)
        for control in (self.devices, self.batch, self.rule):
            control.observe(lambda _: self._show_setup(), names="value")
        self.reports, self._config, self._last_draw = [], None, 0.0
        self._trained_on = ""                   # where the last run trained, once it started
        self._show_setup()
        self.widget = w.VBox([                    # two rows of controls: room for the curves
            w.HBox([self.devices, self.batch, self.aggregation, self.steps]),
            w.HBox([self.rule, self.run_button, self.stop_button, self.progress]),
            self.where, self.summary, self.figure])
        one_mark(self.widget)

    def config(self):
        return RunConfig(devices=self.devices.value, per_device_batch=self.batch.value,
                         lr_rule=self.rule.value, aggregation=self.aggregation.value,
                         base_lr=self.base_lr, base_batch=self.base_batch,
                         steps=self.steps.value)

    def _show_setup(self):
        c = self.config()
        trained_on = f" &middot; {html.escape(self._trained_on)}" if self._trained_on else ""
        self.where.value = (f"total batch {c.total_batch} &middot; learning rate "
                            f"{c.learning_rate:.4g} ({c.lr_rule} scaling from {c.base_lr:g} at "
                            f"batch {c.base_batch}){trained_on}")

    @property
    def run(self):
        return self.buttons.run

    def start(self, devices=None):
        """Start training in a thread (what Run does); returns the BackgroundRun."""
        if self.buttons.running:
            return self.run
        config = self.config()
        try:
            devices = training_devices(config.devices) if devices is None else devices
        except ValueError as error:
            self.summary.value = f"<b style='color:#b35900'>{html.escape(str(error))}</b>"
            return None
        self._trained_on = describe(devices)
        self._show_setup()
        self.reports, self._config = [], config
        self.progress.max, self.progress.value = config.steps, 0
        return self.buttons.launch(lambda stop: live_training(config, devices, stop),
                                   self.draw_report, self.draw_finish)

    def stop(self):
        self.buttons.stop()

    def draw_report(self, report):
        """Called with each step's report: store it, draw (the curves at most ~3 times/s)."""
        self.reports.append(report)
        with self.widget.hold_sync():
            self.progress.value = report.step
            self.summary.value = summary_html(self.reports, self._config)
        if time.perf_counter() - self._last_draw > REDRAW_EVERY_S:
            self._draw_curves()
            self._last_draw = time.perf_counter()

    def _draw_curves(self):
        with self.figure.hold_sync():
            self.figure.value = curves_png(self.reports)
            self.figure.layout.display = None

    def draw_finish(self, status, message):
        if self.reports:
            self._draw_curves()
        note = {"finished": "finished", "stopped": "stopped between two steps",
                "failed": "failed: " + message}[status]
        colour = "#b35900" if status == "failed" else "green"
        # on the summary's own line unless it failed (the error's text may be long): one
        # line less keeps the deck's dashboard slide on a 720 px screen
        joint = "<br>" if status == "failed" else " &middot; "
        self.summary.value = (summary_html(self.reports, self._config)
                              + f"{joint}<b style='color:{colour}'>{html.escape(note)}</b>")

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
