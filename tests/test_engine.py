"""SyncBatchNorm's engine settings: set before MXNet starts, refused with the fix otherwise.
(That these settings are needed and enough is tested in tests/parallel/test_sync_batchnorm.py,
in child processes.)"""

import pytest

from tutorial.engine import allow_sync_batchnorm, check_sync_batchnorm, cpu_threads_ok, required

ENOUGH_FOR_2 = {"MXNET_CPU_WORKER_NTHREADS": "2", "MXNET_CPU_TEMP_COPY": "128"}


@pytest.mark.parametrize("env, k, ok", [
    ({}, 1, True),                                         # one device never waits
    ({}, 2, False),                                        # the defaults: 1 thread, 4 buffers
    (ENOUGH_FOR_2, 2, True),
    (ENOUGH_FOR_2, 4, False),
    ({"MXNET_CPU_WORKER_NTHREADS": "8"}, 2, False),        # threads alone are not enough
    ({"MXNET_CPU_TEMP_COPY": "1000"}, 2, False),           # buffers alone neither
    ({"MXNET_CPU_WORKER_NTHREADS": "many", "MXNET_CPU_TEMP_COPY": "128"}, 2, False),
])
def test_which_settings_let_k_cpu_contexts_meet_at_the_barrier(env, k, ok):
    assert cpu_threads_ok(k, env) is ok


def test_allow_sets_the_variables_only_before_mxnet_starts():
    env = {}
    assert allow_sync_batchnorm(3, env=env, mxnet_imported=True) is False and env == {}
    assert allow_sync_batchnorm(3, env=env, mxnet_imported=False) is True
    assert {k: int(v) for k, v in env.items()} == required(3)
    assert allow_sync_batchnorm(2, env=env, mxnet_imported=True) is True   # 3 >= 2 already


def test_allow_never_lowers_a_larger_setting():
    env = {"MXNET_CPU_TEMP_COPY": "999"}
    allow_sync_batchnorm(2, env=env, mxnet_imported=False)
    assert env["MXNET_CPU_TEMP_COPY"] == "999" and env["MXNET_CPU_WORKER_NTHREADS"] == "2"


def test_check_counts_only_cpu_contexts():
    check_sync_batchnorm(["gpu(0)", "gpu(1)"], env={})
    with pytest.raises(ValueError, match="allow_sync_batchnorm\\(2\\)"):
        check_sync_batchnorm(["cpu(0)", "cpu(1)", "gpu(0)"], env={})
