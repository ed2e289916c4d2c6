"""Live data-parallel training dashboard: controls, Run/Stop, curves. The view only draws.

Training happens in ``tutorial.parallel.live``: Run builds a ``RunConfig`` from the
controls and starts a ``BackgroundRun`` (a thread), whose reports arrive in
:meth:`TrainingDashboard.draw_report`. Why a thread: while a button callback runs, the
kernel is busy and cannot receive the Stop click; a callback that only starts a thread
returns at once. Widget updates sent from that thread reach JupyterLab like any other.
The curves are one matplotlib figure redrawn into an ``Image`` at most a few times a
second (no pyplot, so no figure piles up in the notebook).

>>> view = TrainingDashboard(max_devices=4)
>>> view.devices.max, view.config().total_batch
(4, 64)
"""

import html
import io
import time

import ipywidgets as w

from tutorial.devices import describe, training_devices, try_all_gpus
from tutorial.parallel.aggregation import AGGREGATIONS
from tutorial.parallel.live import BackgroundRun, RunConfig, live_training

REDRAW_EVERY_S = 0.3


def curves_png(reports, config):
    """PNG bytes of loss, accuracy, samples/s and the split of step time, per step."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 5.2), dpi=80)
    FigureCanvasAgg(fig)
    axes = fig.subplots(2, 2)
    steps = [r.step for r in reports]
    panels = [(axes[0, 0], [r.loss for r in reports], "training loss"),
              (axes[0, 1], [r.accuracy for r in reports], "accuracy (this batch)"),
              (axes[1, 0], [r.samples_per_s for r in reports], "samples / s")]
    for ax, values, title in panels:
        ax.plot(steps, values, lw=1.2)
        ax.set_title(title, fontsize=10)
    ax = axes[1, 1]
    compute = [1e3 * r.compute_s for r in reports]
    aggregate = [1e3 * r.aggregate_s for r in reports]
    update = [1e3 * r.update_s for r in reports]
    ax.stackplot(steps, compute, aggregate, update, labels=["compute", "aggregate", "update"])
    ax.set_title("ms per step", fontsize=10)
    typical = sorted(1e3 * r.total_s for r in reports)[len(reports) // 2]
    ax.set_ylim(0, 2.5 * typical)          # the first step (warm-up) would squash the rest
    ax.legend(loc="upper right", fontsize=8)
    for ax in axes.flat:
        ax.set_xlim(0, max(10, steps[-1]))
        ax.set_xlabel("step", fontsize=8)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def summary_html(reports, config):
    """One line with the last step's numbers and the average compute/aggregation split."""
    if not reports:
        return "<i>not started</i>"
    last = reports[-1]
    compute = sum(r.compute_s for r in reports) / len(reports)
    aggregate = sum(r.aggregate_s for r in reports) / len(reports)
    return (f"step {last.step}/{config.steps} &middot; loss {last.loss:.3f} &middot; "
            f"accuracy {last.accuracy:.2f} &middot; {last.samples_per_s:,.0f} samples/s "
            f"&middot; per step: compute {1e3 * compute:.1f} ms, aggregation "
            f"{1e3 * aggregate:.1f} ms")


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
        self.run_button = w.Button(description="Run", button_style="success", icon="play")
        self.stop_button = w.Button(description="Stop", button_style="danger", icon="stop",
                                    disabled=True)
        self.progress = w.IntProgress(value=0, min=0, max=1, description="progress")
        self.where = w.HTML()
        self.summary = w.HTML(summary_html([], None))
        self.figure = w.Image(format="png")
        for widget, name in ((self.run_button, "run"), (self.stop_button, "stop"),
                             (self.progress, "progress"), (self.summary, "summary")):
            widget.add_class(f"dp-dashboard-{name}")       # for a browser test to find
        self.run_button.on_click(lambda _: self.start())
        self.stop_button.on_click(lambda _: self.stop())
        for control in (self.devices, self.batch, self.rule):
            control.observe(lambda _: self._show_setup(), names="value")
        self.reports, self.run, self._config, self._last_draw = [], None, None, 0.0
        self._show_setup()
        self.widget = w.VBox([
            w.HBox([self.devices, self.batch, self.aggregation]),
            w.HBox([self.rule, self.steps]),
            w.HBox([self.run_button, self.stop_button, self.progress]),
            self.where, self.summary, self.figure])

    def config(self):
        return RunConfig(devices=self.devices.value, per_device_batch=self.batch.value,
                         lr_rule=self.rule.value, aggregation=self.aggregation.value,
                         base_lr=self.base_lr, base_batch=self.base_batch,
                         steps=self.steps.value)

    def _show_setup(self):
        c = self.config()
        self.where.value = (f"total batch {c.total_batch} &middot; learning rate "
                            f"{c.learning_rate:.4g} ({c.lr_rule} scaling from {c.base_lr:g} at "
                            f"batch {c.base_batch})")

    def start(self, devices=None):
        """Start training in a thread (what Run does); returns the BackgroundRun."""
        if self.run is not None and self.run.running:
            return self.run
        config = self.config()
        try:
            devices = training_devices(config.devices) if devices is None else devices
        except ValueError as error:
            self.summary.value = f"<b style='color:#b35900'>{html.escape(str(error))}</b>"
            return None
        self.where.value += " &middot; " + html.escape(describe(devices))
        self.reports, self._config = [], config
        self.progress.max, self.progress.value = config.steps, 0
        self.run_button.disabled, self.stop_button.disabled = True, False
        self.run = BackgroundRun(lambda stop: live_training(config, devices, stop),
                                 self.draw_report, self.draw_finish)
        return self.run.start()

    def stop(self):
        if self.run is not None:
            self.run.stop()
            self.stop_button.disabled = True

    def draw_report(self, report):
        """Called with each step's report: store it, draw (the curves at most ~3 times/s)."""
        self.reports.append(report)
        with self.widget.hold_sync():
            self.progress.value = report.step
            self.summary.value = summary_html(self.reports, self._config)
        if time.perf_counter() - self._last_draw > REDRAW_EVERY_S:
            self.figure.value = curves_png(self.reports, self._config)
            self._last_draw = time.perf_counter()

    def draw_finish(self, status, message):
        if self.reports:
            self.figure.value = curves_png(self.reports, self._config)
        note = {"finished": "finished", "stopped": "stopped between two steps",
                "failed": "failed: " + message}[status]
        colour = "#b35900" if status == "failed" else "green"
        self.summary.value = (summary_html(self.reports, self._config)
                              + f"<br><b style='color:{colour}'>{html.escape(note)}</b>")
        self.run_button.disabled, self.stop_button.disabled = False, True

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
