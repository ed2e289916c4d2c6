"""float16 and bfloat16 rounding against MXNet's own casts; the underflow report by hand."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.memory.amp_probe import onednn_on
from tutorial.memory.precision import (FLOAT16_SMALLEST, FLOAT16_SMALLEST_NORMAL, round_trip,
                                       to_bfloat16, underflow)

BFLOAT16 = np.dtype([("bfloat16", np.uint16)])     # how MXNet 1.9 names the type


def _values():
    rng = np.random.default_rng(0)
    magnitudes = np.float32(10.0) ** rng.integers(-40, 38, 4000).astype(np.float32)
    x = (rng.normal(size=4000).astype(np.float32) * magnitudes).astype(np.float32)
    return np.concatenate([x, np.float32([0.0, -0.0, 1.0, 1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8,
                                          65504.0, 65520.0, 3e-8, 2 ** -25])])


@pytest.mark.skipif(not onednn_on(), reason="MXNet casts to bfloat16 with oneDNN only "
                    "(MXNET_MKLDNN_ENABLED=0 turns it off)")
def test_bfloat16_equals_mxnet_cast():
    x = _values()
    down = mx.nd.amp_cast(mx.nd.array(x), dtype=BFLOAT16)
    theirs = mx.nd.amp_cast(down, dtype="float32").asnumpy()
    np.testing.assert_array_equal(to_bfloat16(x), theirs)


def test_bfloat16_ties_go_to_even():
    # 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: even mantissa is 1
    assert to_bfloat16([1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8]).tolist() == [1.0, 1.0 + 2 ** -6]
    assert np.isnan(to_bfloat16([np.nan])[0]) and to_bfloat16([np.inf])[0] == np.inf


def test_float16_equals_mxnet_cast():
    x = _values()
    theirs = mx.nd.array(x).astype("float16").astype("float32").asnumpy()
    np.testing.assert_array_equal(round_trip(x, "float16"), theirs)


def test_float16_limits():
    assert FLOAT16_SMALLEST == 2.0 ** -24 and FLOAT16_SMALLEST_NORMAL == 2.0 ** -14
    assert round_trip([2 ** -25, 2 ** -24, 65504, 65520], "float16").tolist() == \
        [0.0, 2 ** -24, 65504.0, np.inf]         # 2^-25 ties to even (0); 65520 rounds up


def test_underflow_report_by_hand():
    grads = [np.float32([1e-9, 0.0, 1e-6]), np.float32([[1e-2, 2e-8]])]
    report = underflow(grads)
    assert report.nonzero == 4                   # the exact zero is not counted
    assert report.flushed == 0.5                 # 1e-9 and 2e-8 become 0
    assert report.subnormal == 0.75              # all but 1e-2 are below 6.1e-5
    scaled = underflow(grads, scale=1024.0)
    assert scaled.flushed == 0.0 and scaled.overflowed == 0.0
    assert underflow(grads, scale=1e7).overflowed == 0.25    # 1e-2 * 1e7 > 65504


def test_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="dtype"):
        round_trip([1.0], "int8")
    with pytest.raises(ValueError, match="nonzero"):
        underflow([np.zeros(3)])
