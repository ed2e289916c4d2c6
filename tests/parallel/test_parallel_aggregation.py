"""Every aggregation leaves the SUM over devices on every device (NumPy is the reference)."""

import mxnet as mx
import numpy as np
import pytest

from tutorial.parallel.aggregation import AGGREGATIONS, make_aggregator


@pytest.mark.parametrize("name", AGGREGATIONS)
@pytest.mark.parametrize("k", [2, 3, 4])
def test_every_device_gets_the_sum(name, k):
    rng = np.random.default_rng(k)
    shapes = [(5, 3), (7,), (1,)]
    host = [[rng.normal(size=s).astype(np.float32) for _ in range(k)] for s in shapes]
    devices = [mx.cpu(i) for i in range(k)]
    grads = [[mx.nd.array(a, ctx=d) for a, d in zip(per_param, devices)] for per_param in host]
    aggregate = make_aggregator(name, devices)
    for _ in range(2):                       # a second call must not add the first one again
        for per_param, arrays in zip(host, grads):
            for a, g in zip(per_param, arrays):
                g[:] = a
        aggregate(grads)
    for per_param, arrays in zip(host, grads):
        expected = np.sum(per_param, axis=0)
        for device, g in zip(devices, arrays):
            assert g.context == device
            np.testing.assert_allclose(g.asnumpy(), expected, rtol=1e-6, atol=1e-6)


def test_one_device_is_left_alone():
    g = mx.nd.array([1.0, 2.0])
    make_aggregator("device", [mx.cpu(0)])([[g]])
    assert g.asnumpy().tolist() == [1.0, 2.0]


def test_unknown_aggregation_lists_the_choices():
    with pytest.raises(ValueError, match="choose one of device, local, ps, tree, butterfly, ring"):
        make_aggregator("allgather", [mx.cpu(0), mx.cpu(1)])
