"""A Start and a Stop button that drive one background run at a time: the wiring the
dashboard, the throughput demo and the cluster demo share.

Start (its label is the widget's: Run, Measure, Start cluster) calls the widget's own
``start``; the widget prepares its view and calls :meth:`RunButtons.launch`, which starts a
:class:`~tutorial.parallel.live.BackgroundRun` with Start disabled and Stop enabled. Stop
asks the run to end after its current step and disables itself. When the run ends, the
widget's ``on_finish`` draws the outcome and the buttons come back (Start on, Stop off).
A run at a time: ``launch`` while one runs returns that run. :func:`press` presses Start
and waits for the run: how ``python -m tutorial.jupyter.notebooks execute`` stores a demo's frame
after a real run instead of before it.

>>> buttons = RunButtons("Measure")
>>> run = buttons.launch(lambda stop: iter([1, 2]), lambda report: None)
>>> run.join(10), buttons.running, buttons.start_button.disabled, buttons.stop_button.disabled
(True, False, False, True)
"""

import html
import threading

from tutorial.parallel.live import BackgroundRun
from tutorial.viz.projector import TEXT_PX



def status_line(text, colour="#222", size=TEXT_PX):
    """One line of a run's status or result, as HTML (``text`` is escaped)."""
    text = html.escape(text, quote=False)
    return f"<div style='font:{size}px sans-serif;color:{colour}'>{text}</div>"


class RunButtons:
    """Start/Stop buttons and the one :class:`BackgroundRun` they drive."""

    def __init__(self, start_label, width=None):
        import ipywidgets as w

        layout = w.Layout(width=width) if width else w.Layout()
        self.start_button = w.Button(description=start_label, button_style="success",
                                     icon="play", layout=layout)
        self.stop_button = w.Button(description="Stop", button_style="danger", icon="stop",
                                    disabled=True)
        self.stop_button.on_click(lambda _: self.stop())
        self.run = None
        self._lock = threading.Lock()

    def on_start(self, start):
        """Call ``start()`` (the widget's own) when Start is pressed."""
        self.start_button.on_click(lambda _: start())

    @property
    def running(self):
        return self.run is not None and self.run.running

    def launch(self, make_reports, on_report, on_finish=None):
        """Start ``BackgroundRun(make_reports, on_report, ...)``, or return the one running."""
        with self._lock:
            if self.running:
                return self.run
            self.start_button.disabled, self.stop_button.disabled = True, False

            def finish(status, message):
                try:
                    if on_finish is not None:
                        on_finish(status, message)
                finally:
                    self.start_button.disabled, self.stop_button.disabled = False, True

            self.run = BackgroundRun(make_reports, on_report, finish)
            return self.run.start()

    def stop(self):
        """Ask the run to end after its current step (returns at once)."""
        if self.run is not None:
            self.run.stop()
            self.stop_button.disabled = True


def press(view, timeout_s=600):
    """Press ``view.buttons``' Start (as a click does) and wait until its run ends; raises
    unless it finished, so a failed or endless run is never stored as the demo's frame."""
    buttons = view.buttons
    buttons.start_button.click()
    run = buttons.run
    if run is None:
        raise RuntimeError(f"pressing {buttons.start_button.description!r} started no run")
    if not run.join(timeout_s):
        buttons.stop()
        run.join(60)
        raise TimeoutError(f"{buttons.start_button.description!r}: the run did not end "
                           f"within {timeout_s} s; stopped")
    if run.status != "finished":
        raise RuntimeError(f"{buttons.start_button.description!r}: the run {run.status}")
    return run
