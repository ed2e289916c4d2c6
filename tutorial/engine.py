"""MXNet's engine settings that SyncBatchNorm needs on CPU contexts (no MXNet import here).

SyncBatchNorm makes the K devices wait for each other inside the operator (a barrier in
its forward and in its backward pass), so the K per-device operators must run at the same
time on different engine threads. On GPUs each device has its own threads. On CPU
contexts standing in for GPUs, MXNet's default engine (``ThreadedEnginePerDevice`` with
``MXNET_CPU_WORKER_NTHREADS=1``) does not run them side by side: we measured two CPU
contexts hang in SyncBatchNorm's first forward pass in 3 runs out of 3, and run with
``MXNET_CPU_WORKER_NTHREADS=2`` (3 of 3) or ``MXNET_ENGINE_TYPE=ThreadedEngine`` (3 of 3).

The engine reads these variables once, when ``import mxnet`` creates it, so
:func:`allow_sync_batchnorm` must run before that import (the first cell of a notebook),
and :func:`check_sync_batchnorm` refuses, with the fix, instead of letting a run hang.

>>> env = {}
>>> allow_sync_batchnorm(4, env=env, mxnet_imported=False)
True
>>> env
{'MXNET_CPU_WORKER_NTHREADS': '4'}
>>> check_sync_batchnorm(["cpu(0)", "cpu(1)"], env={})
Traceback (most recent call last):
...
ValueError: SyncBatchNorm on 2 CPU contexts needs MXNet's engine to run them on 2 threads, ...
"""

import os
import sys

THREADS_VAR = "MXNET_CPU_WORKER_NTHREADS"
ENGINE_VAR = "MXNET_ENGINE_TYPE"


def cpu_threads_ok(num_cpu_devices, env=None):
    """True when the engine settings in ``env`` run ``num_cpu_devices`` CPU operators at once."""
    env = os.environ if env is None else env
    engine = env.get(ENGINE_VAR, "")
    if num_cpu_devices <= 1 or engine == "ThreadedEngine":
        return True
    if engine == "NaiveEngine":           # runs every operator in the calling thread
        return False
    try:
        return int(env.get(THREADS_VAR, "1")) >= num_cpu_devices
    except ValueError:
        return False


def allow_sync_batchnorm(num_cpu_devices, env=None, mxnet_imported=None):
    """Set ``MXNET_CPU_WORKER_NTHREADS`` so SyncBatchNorm can run on that many CPU contexts.

    Returns True when the setting is (now) in place, False when MXNet was imported before
    with too few threads: then restart the kernel and call this first.
    """
    env = os.environ if env is None else env
    imported = "mxnet" in sys.modules if mxnet_imported is None else mxnet_imported
    if cpu_threads_ok(num_cpu_devices, env):
        return True
    if imported:
        return False
    env[THREADS_VAR] = str(num_cpu_devices)
    return True


def check_sync_batchnorm(devices, env=None):
    """Refuse SyncBatchNorm on CPU contexts that the engine would deadlock (ValueError, fix)."""
    cpus = [d for d in devices if str(d).startswith("cpu")]
    if not cpu_threads_ok(len(cpus), env):
        raise ValueError(
            f"SyncBatchNorm on {len(cpus)} CPU contexts needs MXNet's engine to run them on "
            f"{len(cpus)} threads, or its barrier waits forever. Restart the kernel and, "
            f"before importing mxnet, run tutorial.engine.allow_sync_batchnorm({len(cpus)}) "
            f"(or set {THREADS_VAR}={len(cpus)} in the environment); or use norm='batch'.")
