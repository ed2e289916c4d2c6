import mxnet as mx
import pytest

from tutorial import devices


def test_virtual_devices_are_distinct_cpu_contexts():
    ctxs = devices.virtual_devices(4)
    assert ctxs == [mx.cpu(i) for i in range(4)]
    arrays = [mx.nd.ones((2,), ctx=c) * (i + 1) for i, c in enumerate(ctxs)]
    assert [a.context for a in arrays] == ctxs


@pytest.mark.parametrize("bad", [0, -1, 2.5, "2"])
def test_virtual_devices_rejects_bad_counts(bad):
    with pytest.raises(ValueError, match="whole number"):
        devices.virtual_devices(bad)


def test_training_devices_falls_back_to_cpu_and_refuses_too_many_gpus():
    assert devices.training_devices(3, gpus=[]) == devices.virtual_devices(3)
    with pytest.raises(ValueError, match="virtual_devices\\(4\\)"):
        devices.training_devices(4, gpus=[mx.gpu(0), mx.gpu(1)])
    assert devices.training_devices(1, gpus=[mx.gpu(0), mx.gpu(1)]) == [mx.gpu(0)]


def test_check_devices_names_the_fix_for_a_gpu_that_is_not_there():
    with pytest.raises(ValueError, match="training_devices"):
        devices.check_devices([mx.gpu(7)])
    with pytest.raises(ValueError, match="repeat"):
        devices.check_devices([mx.cpu(0), mx.cpu(0)])


def test_describe_says_virtual_devices_show_overhead():
    assert "overhead, not speed-up" in devices.describe(devices.virtual_devices(2))
    assert devices.describe([mx.gpu(0), mx.gpu(1)]).startswith("2 GPUs")


def test_hopper_capability_is_explained():
    assert "sm_50 to sm_86" in devices._capability_reason("9.0")
    assert devices._capability_reason("8.6") == ""


def test_report_on_this_machine_lists_a_reason_for_every_unusable_gpu():
    for status in devices.gpu_report():
        assert status.usable or status.reason
