"""The training loop behind the live dashboard: a generator of step reports, and a thread.

The loop knows nothing about widgets: :func:`live_training` trains for real and yields
one :class:`~tutorial.parallel.reports.StepReport` per step; it checks a stop flag
*between* steps, so a stop never leaves a half-applied update. :class:`BackgroundRun`
runs it in a thread and hands every report to a callback: the button that starts it
returns at once, the kernel stays free to receive the Stop click, and the view only draws
what arrives (``tutorial.viz.dashboard``).

>>> config = RunConfig(devices=2, per_device_batch=8, steps=5, lr_rule="linear")
>>> config.total_batch, config.learning_rate
(16, 0.05)
>>> reports = list(live_training(config))
>>> [r.step for r in reports], reports[-1].samples
([1, 2, 3, 4, 5], 16)
"""

import dataclasses
import threading
from typing import Tuple

from tutorial.devices import training_devices
from tutorial.optim.scaling import RULES, scaled_lr
from tutorial.parallel.aggregation import check_aggregation
from tutorial.parallel.trainer import DataParallelTrainer
from tutorial.parallel.workload import digits_batches, mlp
from tutorial.validate import check_count, check_range


@dataclasses.dataclass(frozen=True)
class RunConfig:
    devices: int = 2                  # how many devices (virtual CPU contexts without GPUs)
    per_device_batch: int = 32
    lr_rule: str = "linear"           # 'none', 'linear' or 'sqrt', relative to base_batch
    aggregation: str = "device"       # see tutorial.parallel.aggregation.AGGREGATIONS
    base_lr: float = 0.1              # the learning rate that suits base_batch
    base_batch: int = 32
    steps: int = 200
    hidden: Tuple[int, ...] = (128,)
    seed: int = 0

    def __post_init__(self):
        if self.lr_rule not in RULES:
            raise ValueError(f"lr_rule must be one of {', '.join(RULES)}, got {self.lr_rule!r}")
        check_aggregation(self.aggregation)
        for name in ("devices", "per_device_batch", "steps", "base_batch"):
            check_count(name, getattr(self, name))
        check_range("base_lr", self.base_lr, 0.0, low_open=True)

    @property
    def total_batch(self):
        return self.devices * self.per_device_batch

    @property
    def learning_rate(self):
        return scaled_lr(self.lr_rule, self.base_lr, self.base_batch, self.total_batch)


def live_training(config, devices=None, stop=None, data=None):
    """Train per ``config``; yield a StepReport after every step until done or ``stop`` is set.

    ``devices`` defaults to ``training_devices(config.devices)``; ``stop`` is a
    ``threading.Event``; ``data`` = ``(X, y)`` replaces the digits.
    """
    devices = training_devices(config.devices) if devices is None else devices
    trainer = DataParallelTrainer(mlp(config.hidden, seed=config.seed), devices,
                                  aggregation=config.aggregation,
                                  learning_rate=config.learning_rate)
    batches = digits_batches(config.total_batch, seed=config.seed, data=data)
    for _ in range(config.steps):
        if stop is not None and stop.is_set():
            return
        yield trainer.step(*next(batches))


class BackgroundRun:
    """Run a report generator in a thread: ``on_report(r)`` per step, ``on_finish(status, msg)``.

    ``make_reports(stop)`` builds the generator from a stop ``threading.Event``.
    ``status`` is 'finished', 'stopped' or 'failed' (``msg`` then holds the error's text,
    e.g. the advice to lower the learning rate).
    """

    def __init__(self, make_reports, on_report, on_finish=None):
        self._make_reports = make_reports
        self._on_report = on_report
        self._on_finish = on_finish or (lambda status, message: None)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.status = "ready"

    def start(self):
        self.status = "running"
        self._thread.start()
        return self

    def stop(self):
        """Ask the loop to end after the step it is in (returns at once)."""
        self._stop.set()

    def join(self, timeout=None):
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def running(self):
        return self._thread.is_alive()

    def _run(self):
        message = ""
        try:
            for report in self._make_reports(self._stop):
                self._on_report(report)
            self.status = "stopped" if self._stop.is_set() else "finished"
        except Exception as error:  # shown to the learner instead of a dead thread
            self.status, message = "failed", f"{type(error).__name__}: {error}"
        self._on_finish(self.status, message)
