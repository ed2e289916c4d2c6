"""GPU discovery runs once per process: the second trainer, dashboard or run asks the cache."""

import mxnet as mx
import pytest

from tutorial import devices
from tutorial.parallel.concise import GluonDataParallel
from tutorial.parallel.trainer import DataParallelTrainer
from tutorial.parallel.workload import mlp


@pytest.fixture
def hopper(monkeypatch):
    """One H100 that the driver and MXNet see but the wheel cannot run on; probes counted."""
    probes = []

    def probe(index, timeout=120):
        probes.append(index)
        return f"MXNet could not run a kernel on gpu({index}): no kernel image is available"

    monkeypatch.setattr(devices, "_nvidia_smi_gpus", lambda: [(0, "NVIDIA H100", "9.0")])
    monkeypatch.setattr(devices.mx.context, "num_gpus", lambda: 1)
    monkeypatch.setattr(devices, "_probe", probe)
    devices._probed_report.cache_clear()        # forget what earlier tests cached
    yield probes
    devices._probed_report.cache_clear()        # later tests see the real machine again


def test_second_trainer_does_not_probe_again(hopper):
    for make in (DataParallelTrainer, DataParallelTrainer, GluonDataParallel):
        make(mlp(hidden=(8,)), devices.training_devices(2), learning_rate=0.1)
    assert hopper == [0]


def test_gpu_contexts_are_checked_against_the_cached_report(hopper):
    for _ in range(3):
        with pytest.raises(ValueError, match=r"gpu\(0\) cannot be used here.*training_devices"):
            devices.check_devices([mx.gpu(0)])
    assert hopper == [0]


def test_cached_report_keeps_the_hopper_reason_and_refresh_probes_again(hopper):
    status, = devices.gpu_report()
    assert not status.usable
    assert status.reason.startswith("compute capability 9.0 is newer than the mxnet-cu117 "
                                    "1.9.1 wheel supports (kernels for sm_50 to sm_86, no PTX);")
    assert "could not run a kernel on gpu(0)" in status.reason
    devices.gpu_report().clear()                # a caller's list is its own copy
    assert len(devices.gpu_report()) == 1 and hopper == [0]
    devices.gpu_report(refresh=True)
    assert hopper == [0, 0]


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2"])
def test_training_devices_rejects_bad_counts(bad):
    with pytest.raises(ValueError, match=r"n must be a whole number >= 1 \(devices to train on"):
        devices.training_devices(bad, gpus=[])
    with pytest.raises(ValueError, match=r"n must be a whole number >= 1"):
        devices.training_devices(bad, gpus=[mx.gpu(0)])


def test_numpy_counts_are_fine():
    import numpy as np
    assert devices.training_devices(np.int64(2), gpus=[]) == [mx.cpu(0), mx.cpu(1)]


@pytest.mark.parametrize("bad, message", [
    (2, "devices must be a list of MXNet contexts, got 2.*training_devices\\(n\\)"),
    ([mx.cpu(0), "gpu0"], "'gpu0' is not an MXNet context"),
    ([], "no devices given"),
])
def test_check_devices_explains_what_is_not_a_device_list(bad, message):
    with pytest.raises(ValueError, match=message):
        DataParallelTrainer(mlp(hidden=(8,)), bad)
