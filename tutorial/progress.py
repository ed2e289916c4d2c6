"""Progress for long cells: one live line saying what runs, how far, and the time left.

    with Progress("sweep: 5 batch sizes x 4 rates", total=20) as progress:
        for job in jobs:
            run(job)
            progress.advance(f"batch {job.batch}")

In a Jupyter kernel at full size the line is an ``ipywidgets.HTML`` that changes in
place. In fast mode (``make test``, the stored outputs) and outside a kernel nothing is
shown: the cells are short there, logs stay quiet, and a notebook's outputs do not
depend on how long its cells took.

The text is a pure function of (what, done, total, elapsed), so it is tested apart
from any widget:

>>> progress_line("sweep", 0, 20, 0.0)
'sweep: starting (0 of 20)'
>>> progress_line("sweep", 5, 20, 30.0)
'sweep: 5 of 20 (25%), 30 s elapsed, about 1 min 30 s left'
>>> progress_line("sweep", 20, 20, 125.0, detail="batch 512")
'sweep: done, 20 of 20 in 2 min 5 s (batch 512)'
>>> progress_line("train", 7, None, 65.0)        # an endless stream: no total
'train: 7 done, 1 min 5 s elapsed'
>>> progress_line("sweep", 25, 20, 30.0)
Traceback (most recent call last):
...
ValueError: done=25 is more than total=20: count at most the units there are.
"""

import math
import time

from tutorial.config import fast_mode
from tutorial.validate import check_count, check_range


def format_seconds(seconds):
    """'42 s', '3 min 5 s', '1 h 2 min' (rounded to whole seconds)."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s" if seconds else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def progress_line(what, done, total, elapsed, detail=""):
    """The text of the line after ``done`` of ``total`` units took ``elapsed`` seconds.

    Time left assumes the remaining units take as long as the finished ones did;
    ``total=None`` (a stream of unknown length) counts what is done.
    """
    done = check_count("done", done, low=0, what="units of work finished")
    elapsed = check_range("elapsed", elapsed, 0.0)
    tail = f" ({detail})" if detail else ""
    if total is None:
        return (f"{what}: {done} done, {format_seconds(elapsed)} elapsed{tail}" if done
                else f"{what}: starting{tail}")
    total = check_count("total", total, low=0, what="units of work the line counts")
    if done > total:
        raise ValueError(f"done={done} is more than total={total}: count at most the units "
                         f"there are.")
    if done == 0:
        return f"{what}: starting (0 of {total}){tail}"
    if done == total:
        return f"{what}: done, {done} of {total} in {format_seconds(elapsed)}{tail}"
    left = elapsed / done * (total - done)
    return (f"{what}: {done} of {total} ({math.floor(100 * done / total)}%), "
            f"{format_seconds(elapsed)} elapsed, about {format_seconds(left)} left{tail}")


def _in_kernel():
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class Progress:
    """A live progress line for ``total`` units of work (see the module docstring);
    ``total=None`` when the number is not known (an endless stream of batches).

    ``show=None`` shows it only inside a Jupyter kernel at full size; ``clock`` is
    injectable for tests. Updates reach the browser at most every ``min_interval`` seconds, and always
    at the end.
    """

    def __init__(self, what, total, show=None, clock=time.monotonic, min_interval=0.25):
        self.what = str(what)
        self.total = None if total is None else check_count(
            "total", total, low=0, what="units of work the line counts")
        self.done = 0
        self.detail = ""
        self._clock = clock
        self._start = clock()
        self._last_draw = -math.inf
        self._min_interval = min_interval
        self._widget = None
        if (_in_kernel() and not fast_mode()) if show is None else show:
            import ipywidgets
            from IPython.display import display
            self._widget = ipywidgets.HTML(value=self.line())
            display(self._widget)

    @property
    def elapsed(self):
        return self._clock() - self._start

    def line(self):
        return progress_line(self.what, self.done, self.total, self.elapsed, self.detail)

    def update(self, done, detail=""):
        """``done`` units are done in all (for work that reports totals, not steps); a
        number, cut to [0, total]."""
        done = int(check_range("done", done))
        self.done = max(0, done if self.total is None else min(self.total, done))
        self.detail = str(detail)
        self._draw(force=self.done == self.total)

    def advance(self, detail="", by=1):
        """``by`` more units are done; ``detail`` says which (e.g. 'batch 512')."""
        by = check_count("by", by, low=0, what="units of work just done")
        self.done = self.done + by if self.total is None else min(self.total, self.done + by)
        self.detail = str(detail)
        self._draw(force=self.done == self.total)

    def close(self):
        """Show the final line (also when the work stopped early with an error)."""
        self._draw(force=True)

    def _draw(self, force=False):
        if self._widget is None:
            return
        now = self._clock()
        if force or now - self._last_draw >= self._min_interval:
            self._widget.value = self.line()
            self._last_draw = now

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        if error is not None:
            self.detail = f"stopped: {type(error).__name__}"
        self.close()
        return False


def track(items, what, total=None, show=None):
    """Yield from ``items`` while a Progress line counts them (``total`` defaults to len).

    Items are read one at a time, as the loop asks for them: an iterator without a length
    (an endless stream of batches) is never read ahead, and its line has no total.
    """
    if total is None and hasattr(items, "__len__"):
        total = len(items)
    with Progress(what, total, show=show) as progress:
        for item in items:
            yield item
            progress.advance()
