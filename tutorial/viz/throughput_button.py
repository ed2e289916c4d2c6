"""Throughput on K devices, measured live from a button: notebook 11's ResNet trains for real.

**Measure** builds the from-scratch data-parallel trainer (:class:`~tutorial.parallel.
trainer.DataParallelTrainer`) around the ResNet with BatchNorm on K = 1, 2, 4 devices, b
images per device, and times a few training steps on each
(:func:`tutorial.parallel.throughput.measure`, after untimed warm-up steps). It runs in a
thread (:class:`~tutorial.parallel.live.BackgroundRun`), so Stop stays clickable, and each
K adds its row as soon as it is measured: images/s and the scaling efficiency
τ_K / (K τ_1). The input is one synthetic batch fed every step, so the rows time the
devices and the gradient sums, not the data loading.

Without GPUs, K CPU contexts share this machine's cores: they add no compute (at best they
keep the cores busier than one context does), and the verdict says so instead of calling
the number a speed-up. On GPUs the same button measures the speed-up, on as many of
K = 1, 2, 4 as the machine has GPUs (:func:`counts_for`).

The texts are pure functions of the measurements (tests call them without a browser):

>>> from tutorial.parallel.throughput import Measurement
>>> rows = [(1, Measurement(640, 2.0)), (2, Measurement(1280, 2.5))]
>>> print(row_text(*rows[1], tau_1=320.0))
K = 2: 512 images/s, efficiency τ_K / (K τ_1) = 0.80
"""

import dataclasses
import time

from tutorial.validate import check_count
from tutorial.viz.projector import TEXT_PX
from tutorial.viz.run_buttons import RunButtons, status_line
from tutorial.viz.saved_frame import one_mark

COUNTS = (1, 2, 4)


@dataclasses.dataclass(frozen=True)
class Plan:
    """What one press of Measure runs."""
    counts: tuple = COUNTS
    per_device_batch: int = 32
    steps: int = 6                 # timed steps per K, after `warmup` untimed ones
    warmup: int = 2


def counts_for(gpus, counts=COUNTS):
    """The device counts to measure: all of ``counts`` on CPU contexts (no GPU), else those
    the machine's ``gpus`` GPUs can give (never a GPU count the machine lacks).

    >>> counts_for(0), counts_for(1), counts_for(3), counts_for(8)
    ((1, 2, 4), (1,), (1, 2), (1, 2, 4))
    """
    return tuple(counts) if gpus == 0 else tuple(k for k in counts if k <= gpus)


def plan_text(plan, on_gpus):
    where = "GPUs" if on_gpus else "CPU contexts sharing this machine's cores"
    counts = ", ".join(str(k) for k in plan.counts)
    return (f"K = {counts} devices ({where}), b = {plan.per_device_batch} images per device, "
            f"{plan.warmup} untimed then {plan.steps} timed steps each")


def row_text(k, measurement, tau_1):
    tau = measurement.images_per_s
    return f"K = {k}: {tau:.0f} images/s, efficiency τ_K / (K τ_1) = {tau / (k * tau_1):.2f}"


def verdict_text(rows, on_gpus):
    """What the finished table shows, in one sentence (computed from the rows)."""
    (_, first), (k, last) = rows[0], rows[-1]
    gain = last.images_per_s / first.images_per_s
    if on_gpus:
        return f"{k} GPUs process {gain:.2f}× the images per second of one."
    why = ("the gain is the cores kept busier" if gain > 1 else
           "what they add is the cost of splitting the batch and summing the gradients")
    return (f"{k} CPU contexts process {gain:.2f}× the images per second of one: they share "
            f"this machine's cores, so they add no compute; {why} (notebook 11, section 4).")


def bars_svg(rows, width=560, height=210):
    """One bar per K: measured images/s, beside a grey outline at K * tau_1 (ideal)."""
    tau_1 = rows[0][1].images_per_s
    top = max(max(m.images_per_s for _, m in rows), max(k for k, _ in rows) * tau_1)
    slot = (width - 60) / len(rows)
    bottom = height - TEXT_PX - 12                       # the K labels below the bars
    marks = []
    for i, (k, m) in enumerate(rows):
        x = 50 + i * slot
        for value, style in ((k * tau_1, "fill='none' stroke='#999' stroke-dasharray='4 3'"),
                             (m.images_per_s, "fill='#1f77b4'")):
            h = value / top * (bottom - TEXT_PX - 14)
            marks.append(f"<rect x='{x:.0f}' y='{bottom - h:.1f}' width='{slot * 0.6:.0f}' "
                         f"height='{h:.1f}' {style}/>")
        marks.append(f"<text x='{x + slot * 0.3:.0f}' y='{height - 6}' "
                     f"text-anchor='middle'>K = {k}</text>")
    return (f"<svg width='{width}' height='{height}' font-family='sans-serif' "
            f"font-size='{TEXT_PX}'><text x='2' y='{TEXT_PX}'>images/s (dashed: K × τ_1, "
            f"perfect scaling)</text>{''.join(marks)}</svg>")


def resnet_step(devices, learning_rate=0.05, seed=0):
    """One training step of the ResNet on ``devices`` (the thing being timed)."""
    from tutorial.nn.resnet import resnet
    from tutorial.parallel.trainer import DataParallelTrainer

    trainer = DataParallelTrainer(resnet("batch", seed=seed), devices,
                                  learning_rate=learning_rate)
    return lambda X, y: trainer.step(X, y, timed=False)


def measurements(plan, stop, make_step=resnet_step, make_devices=None, measure=None):
    """Yield (K, Measurement) for each K of the plan; stop between two K if asked."""
    from tutorial.parallel import throughput

    make_devices = make_devices or _devices
    measure = measure or throughput.measure
    for k in plan.counts:
        if stop.is_set():
            return
        batches = throughput.synthetic_batches(plan.per_device_batch * k)
        yield k, measure(make_step(make_devices(k)), batches, plan.steps, plan.warmup)


def _devices(k):
    from tutorial.devices import training_devices
    return training_devices(k)


class ThroughputDemo:
    """The widget. ``measure_all(plan, stop)`` yields (K, Measurement); tests pass a stand-in."""

    def __init__(self, plan=None, measure_all=measurements, on_gpus=None):
        import ipywidgets as w

        from tutorial.devices import try_all_gpus

        gpus = len(try_all_gpus()) if plan is None or on_gpus is None else 0
        self.plan = plan or Plan(counts=counts_for(gpus))
        for k in self.plan.counts:
            check_count("device count", k)
        if on_gpus is None:
            on_gpus = gpus >= max(self.plan.counts)
        self.on_gpus, self.measure_all = on_gpus, measure_all
        self.buttons = RunButtons("Measure", width="150px")
        self.start_button, self.stop_button = self.buttons.start_button, self.buttons.stop_button
        self.status, self.table, self.chart = w.HTML(), w.HTML(), w.HTML()
        for widget, name in ((self.start_button, "start"), (self.status, "status"),
                             (self.table, "table"), (self.chart, "chart")):
            widget.add_class(f"throughput-{name}")          # for a browser test to find
        self.buttons.on_start(self.start)
        self.rows, self._started = [], 0.0
        self.status.value = status_line("ready: " + plan_text(self.plan, on_gpus))
        self.widget = w.VBox([w.HBox([self.start_button, self.stop_button]), self.status,
                              w.HBox([self.chart, self.table])])
        self.widget.add_class("throughput-demo")
        one_mark(self.widget)

    @property
    def run(self):
        return self.buttons.run

    @property
    def running(self):
        return self.buttons.running

    def start(self):
        """What Measure does: start the thread and return; a second press while it runs waits."""
        if self.running:
            return self.run
        self.rows, self._started = [], time.monotonic()
        self.table.value, self.chart.value = "", ""
        self.status.value = status_line("measuring: " + plan_text(self.plan, self.on_gpus))
        return self.buttons.launch(lambda stop: self.measure_all(self.plan, stop),
                                   self._add_row, self._finish)

    def stop(self):
        self.buttons.stop()

    def _add_row(self, row):
        self.rows.append(row)
        tau_1 = self.rows[0][1].images_per_s
        with self.widget.hold_sync():
            self.table.value = "".join(status_line(row_text(k, m, tau_1))
                                       for k, m in self.rows)
            self.chart.value = bars_svg(self.rows)

    def _finish(self, status, message):
        elapsed = time.monotonic() - self._started
        with self.widget.hold_sync():
            if status == "finished" and len(self.rows) > 1:
                self.status.value = status_line(
                    f"done in {elapsed:.1f} s. " + verdict_text(self.rows, self.on_gpus), "green")
            elif status == "failed":
                self.status.value = status_line(
                    f"failed after {elapsed:.1f} s: {message} Fallback: notebook 11, section 4, "
                    f"shows a saved table.", "#b30000")
            else:
                self.status.value = status_line(
                    f"{status} after {elapsed:.1f} s, with {len(self.rows)} of "
                    f"{len(self.plan.counts)} rows.", "#b35900")

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
