"""allreduce on real NDArrays against NumPy and MXNet's own kvstore, and its errors."""

import mxnet as mx
import numpy as np
import pytest

import tutorial.parallel
from tutorial.parallel.collectives import allreduce, bind

CASES = [("ps", {}), ("ps", {"servers": 3}), ("tree", {}), ("butterfly", {}), ("ring", {})]
IDS = ["ps", "ps-sharded", "tree", "butterfly", "ring"]


def _options(options, n):
    return {"servers": min(options["servers"], n)} if "servers" in options else {}


def _arrays(host, shape=None):
    shape = host.shape[1:] if shape is None else shape
    return [mx.nd.array(x.reshape(shape), ctx=mx.cpu(i), dtype=host.dtype)
            for i, x in enumerate(host)]


def _kvstore_sum(arrays, kind):
    kv = mx.kv.create(kind)
    kv.init("g", mx.nd.zeros(arrays[0].shape, dtype=arrays[0].dtype))
    outs = [mx.nd.zeros(a.shape, ctx=a.context, dtype=a.dtype) for a in arrays]
    kv.pushpull("g", arrays, out=outs)
    return [o.asnumpy() for o in outs]


@pytest.mark.parametrize("algorithm,options", CASES, ids=IDS)
@pytest.mark.parametrize("n", range(1, 17))
def test_sum_equals_numpy_for_small_lengths(algorithm, options, n):
    rng = np.random.default_rng(n)
    for length in sorted({1, 2, max(n - 1, 1), n, n + 1, 2 * n + 3, 257}):
        # small integers: every summation order gives the exact same float32 sum
        host = rng.integers(-50, 50, size=(n, length)).astype(np.float32)
        arrays = _arrays(host)
        out = allreduce(arrays, algorithm, **_options(options, n))
        for i, (a, r) in enumerate(zip(arrays, out.arrays)):
            assert r.context == mx.cpu(i) and r.shape == (length,)
            np.testing.assert_array_equal(r.asnumpy(), host.sum(axis=0))
            np.testing.assert_array_equal(a.asnumpy(), host[i])     # input untouched


@pytest.mark.parametrize("algorithm,options", CASES, ids=IDS)
def test_sum_equals_kvstore_device_for_every_node_count(algorithm, options):
    rng = np.random.default_rng(7)
    for n in range(1, 17):
        host = rng.standard_normal((n, 3, 7)).astype(np.float32)
        arrays = _arrays(host)
        out = allreduce(arrays, algorithm, **_options(options, n))
        for r, k in zip(out.arrays, _kvstore_sum(arrays, "device")):
            assert r.shape == (3, 7)
            np.testing.assert_allclose(r.asnumpy(), k, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("algorithm,n,length,options", [
    ("ring", 3, 3_000_001, {}), ("ring", 8, 1_048_576, {}), ("butterfly", 5, 2_000_000, {}),
    ("tree", 7, 1_500_000, {}), ("ps", 4, 2_000_003, {"servers": 4}), ("ps", 2, 1_000_000, {})])
def test_sum_equals_kvstore_and_numpy_for_millions_of_elements(algorithm, n, length, options):
    rng = np.random.default_rng(length)
    host = rng.standard_normal((n, length)).astype(np.float32)
    arrays = _arrays(host)
    out = allreduce(arrays, algorithm, **options)
    expected = host.astype(np.float64).sum(axis=0)
    reference = _kvstore_sum(arrays, "device")
    for r, k in zip(out.arrays, reference):
        np.testing.assert_allclose(r.asnumpy(), expected, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(r.asnumpy(), k, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int32])
def test_other_dtypes_keep_their_type_and_bytes(dtype):
    host = np.arange(30).reshape(3, 2, 5).astype(dtype)
    out = allreduce(_arrays(host), "ring")
    assert out.arrays[0].dtype == dtype
    np.testing.assert_array_equal(out.arrays[1].asnumpy(), host.sum(axis=0))
    assert sum(t.nbytes for t in out.steps[0].transfers) == 10 * np.dtype(dtype).itemsize


def test_contract_names_and_schedule():
    assert tutorial.parallel.allreduce is allreduce
    host = np.ones((4, 8), dtype=np.float32)
    out = allreduce(_arrays(host), "ring")
    first = out.steps[0].transfers[0]
    assert (first.source, first.destination, first.chunk, first.nbytes, first.op) == \
        (0, 1, 0, 8, "add")
    assert out.schedule.algorithm == "ring" and len(out.steps) == 6


def test_bad_input_gets_a_clear_error():
    a = mx.nd.ones((3,), ctx=mx.cpu(0))
    b = mx.nd.ones((3,), ctx=mx.cpu(1))
    with pytest.raises(TypeError, match="list of NDArrays"):
        allreduce(a, "ring")
    with pytest.raises(ValueError, match="empty list"):
        allreduce([], "ring")
    with pytest.raises(TypeError, match=r"arrays\[1\] is a ndarray, not an NDArray"):
        allreduce([a, np.ones(3)], "ring")
    with pytest.raises(ValueError, match="one shape"):
        allreduce([a, mx.nd.ones((4,), ctx=mx.cpu(1))], "tree")
    with pytest.raises(ValueError, match="one dtype"):
        allreduce([a, b.astype("float64")], "tree")
    with pytest.raises(ValueError, match="unknown algorithm 'allgather'"):
        allreduce([a, b], "allgather")
    with pytest.raises(ValueError, match="only 'ps' takes servers"):
        allreduce([a, b], "ring", servers=2)
    with pytest.raises(ValueError, match="servers must be a whole number from 1 to the number"):
        allreduce([a, b], "ps", servers=3)
    with pytest.raises(ValueError, match="empty"):
        allreduce([mx.nd.empty((0,)), mx.nd.empty((0,), ctx=mx.cpu(1))], "ring")
    with pytest.raises(TypeError, match="tostype"):
        allreduce([a.tostype("row_sparse"), b], "ring")


@pytest.mark.parametrize("algorithm,options", CASES, ids=IDS)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 7])
@pytest.mark.parametrize("peer_reads", [True, False], ids=["peer-reads", "copies"])
def test_bound_schedule_sums_into_out_or_in_place_call_after_call(algorithm, options, n,
                                                                  peer_reads):
    """bind() allocates once; every call must sum the arrays' current values again."""
    rng = np.random.default_rng(n)
    host = rng.integers(-50, 50, size=(n, 3, 5)).astype(np.float32)
    arrays = _arrays(host)
    outs = [mx.nd.zeros((3, 5), ctx=a.context) for a in arrays]
    into_out = bind(arrays, algorithm, out=outs, peer_reads=peer_reads, **_options(options, n))
    assert into_out.peer_reads is peer_reads
    for call in range(2):                          # inputs change between calls
        for a, x in zip(arrays, host + call):
            a[:] = x
        assert all(r is o for r, o in zip(into_out(), outs))
        for a, o, x in zip(arrays, outs, host + call):
            np.testing.assert_array_equal(o.asnumpy(), (host + call).sum(axis=0))
            np.testing.assert_array_equal(a.asnumpy(), x)          # input untouched
    in_place = bind(arrays, algorithm, peer_reads=peer_reads, **_options(options, n))
    in_place()
    in_place()                                     # the sum of the sums: n * n * x
    for a in arrays:
        np.testing.assert_array_equal(a.asnumpy(), n * n * (host + 1).sum(axis=0) / n)


def test_peer_reads_are_the_default_on_cpu_contexts_and_need_fewer_calls():
    arrays = [mx.nd.ones((8,), ctx=mx.cpu(i)) for i in range(4)]
    assert bind(arrays, "ring").peer_reads is True
    copies = bind(arrays, "ring", out=[a.copy() for a in arrays], peer_reads=False)
    peers = bind(arrays, "ring", out=[a.copy() for a in arrays])
    # the ring's reduce-scatter: 3 steps x 4 transfers, each a copy and an add or an add alone
    assert copies._operations - peers._operations == 12


def test_bind_refuses_outputs_that_do_not_match():
    a, b = mx.nd.ones((3,), ctx=mx.cpu(0)), mx.nd.ones((3,), ctx=mx.cpu(1))
    with pytest.raises(ValueError, match="one array per input with its shape, dtype and context"):
        bind([a, b], "ring", out=[mx.nd.zeros((3,), ctx=mx.cpu(1)), mx.nd.zeros((3,))])
    with pytest.raises(ValueError, match="one array per input"):
        bind([a, b], "ring", out=[mx.nd.zeros((3,))])
