"""A log axis that reads at a glance: ticks at 1, 2 and 5 of each decade, labelled as plain
numbers (``20``, ``500``, ``0.05``), not one ``10^1`` for a range inside a decade.

Matplotlib labels a log axis only at powers of ten, so a range such as 8 to 64 (the
communication rounds of notebook 12, the steps of notebook 11) shows one label or none.

>>> import matplotlib; matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt
>>> fig, ax = plt.subplots()
>>> _ = ax.semilogx([8, 64], [0, 1])
>>> readable_log_axis(ax.xaxis)
>>> fig.canvas.draw()
>>> [t.get_text() for t in ax.get_xticklabels() if 8 <= t.get_position()[0] <= 64]
['10', '20', '50']
>>> plt.close(fig)
"""

from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

SUBS = (1.0, 2.0, 5.0)


def plain(value, _position=None):
    """A tick value as a person writes it: 20, 500, 0.05, 2e+06."""
    return f"{value:g}"


def readable_log_axis(axis, subs=SUBS):
    """Put major ticks at ``subs`` times each power of ten on ``axis`` (``ax.xaxis`` or
    ``ax.yaxis``, already on a log scale), labelled :func:`plain`, and no minor labels."""
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(plain))
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())
