"""SyncBatchNorm's engine settings: set before MXNet starts, refused with the fix otherwise."""

import pytest

from tutorial.engine import allow_sync_batchnorm, check_sync_batchnorm, cpu_threads_ok


@pytest.mark.parametrize("env, k, ok", [
    ({}, 1, True),                                         # one device never waits
    ({}, 2, False),                                        # the default: one worker thread
    ({"MXNET_CPU_WORKER_NTHREADS": "2"}, 2, True),
    ({"MXNET_CPU_WORKER_NTHREADS": "2"}, 4, False),
    ({"MXNET_CPU_WORKER_NTHREADS": "many"}, 2, False),
    ({"MXNET_ENGINE_TYPE": "ThreadedEngine"}, 8, True),
    ({"MXNET_ENGINE_TYPE": "NaiveEngine", "MXNET_CPU_WORKER_NTHREADS": "4"}, 2, False),
])
def test_which_settings_let_k_cpu_contexts_meet_at_the_barrier(env, k, ok):
    assert cpu_threads_ok(k, env) is ok


def test_allow_sets_the_threads_only_before_mxnet_starts():
    env = {}
    assert allow_sync_batchnorm(3, env=env, mxnet_imported=True) is False and env == {}
    assert allow_sync_batchnorm(3, env=env, mxnet_imported=False) is True
    assert env == {"MXNET_CPU_WORKER_NTHREADS": "3"}
    assert allow_sync_batchnorm(2, env=env, mxnet_imported=True) is True   # 3 >= 2 already


def test_check_counts_only_cpu_contexts():
    check_sync_batchnorm(["gpu(0)", "gpu(1)"], env={})
    with pytest.raises(ValueError, match="allow_sync_batchnorm\\(2\\)"):
        check_sync_batchnorm(["cpu(0)", "cpu(1)", "gpu(0)"], env={})
