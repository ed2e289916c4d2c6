"""Arithmetic intensities by hand, the roof, and that the measurements return numbers."""

import math

import pytest

from tutorial.memory import roofline
from tutorial.memory import roofline_measure as measure


def test_counts_by_hand():
    assert (roofline.dot(3).flops, roofline.dot(3).bytes) == (6, 28)            # 3 madds; 7 numbers
    assert (roofline.matvec(2).flops, roofline.matvec(2).bytes) == (8, 32)      # 4 + 2 + 2 numbers
    mm = roofline.matmul(2, 3, 4)
    assert (mm.flops, mm.bytes) == (48, (6 + 12 + 8) * 4)
    layer = roofline.dense(2, 3, 4)                       # matmul + 8 bias adds, + 4 bias numbers
    assert (layer.flops, layer.bytes) == (56, (26 + 4) * 4)
    assert roofline.update("adam", 10).intensity_fraction() == roofline.Operation(
        "", 12, 28).intensity_fraction()                  # 12 FLOPs per 7 numbers: 3/7
    ring = roofline.ring_allreduce(8, 4)                  # 6 numbers added, 5 numbers moved each
    assert (ring.flops, ring.bytes) == (6, 120)


def test_intensity_limits():
    assert roofline.matmul(600, 600, 600).intensity == pytest.approx(600 / 6)
    assert roofline.dot(10 ** 6).intensity == pytest.approx(0.25, rel=1e-5)
    assert roofline.matvec(10 ** 4).intensity == pytest.approx(0.5, rel=1e-3)
    # the ladder climbs: the intensity of M X grows with d, the other two do not
    for d in (16, 256):
        assert roofline.dot(d).intensity < roofline.matvec(d).intensity < \
            roofline.matmul(d, d, d).intensity


def test_roof():
    assert roofline.attainable(1.0, peak=10.0, bandwidth=4.0) == 4.0
    assert roofline.attainable(100.0, peak=10.0, bandwidth=4.0) == 10.0
    assert roofline.attainable(2.5, peak=10.0, bandwidth=4.0) == 10.0           # the ridge


def test_refuses_nonsense():
    with pytest.raises(ValueError, match="update"):
        roofline.update("lion", 10)
    with pytest.raises(ValueError, match="num_nodes"):
        roofline.ring_allreduce(8, 1)
    with pytest.raises(ValueError, match="intensity"):
        roofline.attainable(0.0, 1.0, 1.0)


def test_measurements_return_positive_rates():
    assert measure.peak_flops(32, repeats=1) > 0
    assert measure.bandwidth(4096, repeats=1) > 0
    points = measure.operations(n=1024, d=16, batch=4, units=8, repeats=1)
    assert len(points) == 7 and all(math.isfinite(p.flops_per_s) and p.flops_per_s > 0
                                    for p in points)
    rungs = measure.ladder(4, repeats=1)
    assert [p.operation.flops for p in rungs] == [2 * 4 ** 3] * 3     # the same arithmetic


def test_plots_draw():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tutorial.memory.buckets import Event
    from tutorial.viz import overlap_timeline, roofline_plot

    fig, (a, b) = plt.subplots(1, 2)
    points = measure.operations(n=1024, d=16, batch=4, units=8, repeats=1)
    roofline_plot.draw(a, 1e10, 1e9, points, measure.ladder(4, repeats=1))
    overlap_timeline.draw(b, [Event("compute", "backward layer 1", 0.0, 1e-3),
                              Event("communication", "bucket 0", 5e-4, 2e-3)])
    assert len(a.lines) == 1 + 7 + 3 + 1 and len(b.patches) == 2
    plt.close(fig)
