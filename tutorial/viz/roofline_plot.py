"""The roofline (log-log) and the measured operations on it, drawn with matplotlib.

:mod:`tutorial.memory.roofline` counts, :mod:`tutorial.memory.roofline_measure` measures;
this module only draws: the roof ``min(P, I W)``, its ridge, and one marker per
operation at (arithmetic intensity, measured FLOP/s).
"""

import numpy as np

from tutorial.validate import check_range


def draw(ax, peak, bandwidth, points, ladder=(), title=""):
    """Roof from ``peak`` (FLOP/s) and ``bandwidth`` (bytes/s); ``points`` filled markers,
    ``ladder`` (notebook 01's rungs, launch costs included) hollow ones."""
    peak = check_range("peak", peak, 0.0, low_open=True)               # FLOP/s
    bandwidth = check_range("bandwidth", bandwidth, 0.0, low_open=True)  # bytes/s
    intensities = [p.operation.intensity for p in [*points, *ladder]]
    low = min(intensities + [peak / bandwidth]) / 4
    high = max(intensities + [peak / bandwidth]) * 4
    grid = np.logspace(np.log10(low), np.log10(high), 200)
    ax.loglog(grid, np.minimum(peak, grid * bandwidth) / 1e9, color="black", lw=2,
              label=f"roof: {peak / 1e9:.0f} GFLOP/s, {bandwidth / 1e9:.1f} GB/s")
    ax.axvline(peak / bandwidth, color="grey", ls=":", lw=1)
    ax.text(peak / bandwidth, peak / 1e9 * 1.15, " ridge", color="grey", fontsize=8)
    for i, p in enumerate(points):
        ax.loglog(p.operation.intensity, p.flops_per_s / 1e9, "o", color=f"C{i}",
                  label=p.operation.name)
    for p in ladder:
        ax.loglog(p.operation.intensity, p.flops_per_s / 1e9, "s", mfc="none", color="grey")
        ax.annotate(p.operation.name.split(" (")[0], (p.operation.intensity,
                                                      p.flops_per_s / 1e9),
                    textcoords="offset points", xytext=(5, -3), fontsize=7, color="grey")
    ax.set_xlabel("arithmetic intensity (FLOPs per byte)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title(title)
    ax.legend(fontsize=7, loc="lower right")
