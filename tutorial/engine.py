"""MXNet's engine settings that SyncBatchNorm needs on CPU contexts (no MXNet import here).

SyncBatchNorm makes the K devices wait for each other inside the operator (a barrier in
its forward and in its backward pass). Two things must then hold, or a step waits forever:

1. the K per-device operators run at the same time, on different engine threads: on CPU
   contexts that takes ``MXNET_CPU_WORKER_NTHREADS >= K`` (MXNet's default is 1);
2. no operator of one device waits for an operator of another that is queued behind a
   barrier. On CPU all contexts share one pool of scratch buffers (``MXNET_CPU_TEMP_COPY``
   of them, default 4, handed out in turn), and operators given the same buffer run one
   after the other: device 1's first BatchNorm can get the buffer of device 0's second
   convolution, which waits for device 0's first BatchNorm, which waits for device 1's.
   Enough buffers that one step never hands out the same one twice remove that cycle.

What we measured on two CPU contexts (MXNet 1.9.1, each run stopped after 25 s), with this
library's ResNet and with two SyncBatchNorm layers in a row: default settings, or
``MXNET_CPU_TEMP_COPY=64`` alone, or ``MXNET_CPU_WORKER_NTHREADS=2`` alone: the first step
hangs (threads alone, 2 or 8, also hang the two layers' backward pass); threads and
buffers together: it runs. A single SyncBatchNorm layer runs with the threads alone. On GPUs
every device has its own threads and buffers, and none of this applies.

The engine reads these variables once, when ``import mxnet`` creates it, so
:func:`allow_sync_batchnorm` must run before that import (the first cell of a notebook),
and :func:`check_sync_batchnorm` refuses, with the fix, instead of letting a run hang.

>>> env = {}
>>> allow_sync_batchnorm(4, env=env, mxnet_imported=False)
True
>>> sorted(env.items())
[('MXNET_CPU_TEMP_COPY', '256'), ('MXNET_CPU_WORKER_NTHREADS', '4')]
>>> check_sync_batchnorm(["cpu(0)", "cpu(1)"], env={})
Traceback (most recent call last):
...
ValueError: SyncBatchNorm on 2 CPU contexts needs MXNet's engine settings MXNET_CPU_WORKER_NTHREADS >= 2 and MXNET_CPU_TEMP_COPY >= 128, ...
"""

import os
import sys

THREADS_VAR = "MXNET_CPU_WORKER_NTHREADS"
TEMP_VAR = "MXNET_CPU_TEMP_COPY"
TEMP_COPIES_PER_DEVICE = 64      # above the scratch-buffer requests of one device's step


def required(num_cpu_devices):
    """``{variable: least value}`` for SyncBatchNorm on that many CPU contexts."""
    return {THREADS_VAR: num_cpu_devices, TEMP_VAR: TEMP_COPIES_PER_DEVICE * num_cpu_devices}


def _value(env, name):
    try:
        return int(env.get(name, "0"))
    except ValueError:
        return 0


def cpu_threads_ok(num_cpu_devices, env=None):
    """True when the engine settings in ``env`` let SyncBatchNorm run on that many CPU contexts."""
    env = os.environ if env is None else env
    if num_cpu_devices <= 1:
        return True
    return all(_value(env, name) >= least for name, least in required(num_cpu_devices).items())


def allow_sync_batchnorm(num_cpu_devices, env=None, mxnet_imported=None):
    """Set the engine variables so SyncBatchNorm can run on that many CPU contexts.

    Returns True when the setting is (now) in place, False when MXNet was imported before
    with too few threads: then restart the kernel and call this first.
    """
    env = os.environ if env is None else env
    imported = "mxnet" in sys.modules if mxnet_imported is None else mxnet_imported
    if cpu_threads_ok(num_cpu_devices, env):
        return True
    if imported:
        return False
    for name, least in required(num_cpu_devices).items():
        env[name] = str(max(least, _value(env, name)))
    return True


def sync_layers(net):
    """The SyncBatchNorm layers of a Gluon block (none: [])."""
    from mxnet.gluon.contrib.nn import SyncBatchNorm      # here: this module imports no MXNet
    found = [net] if isinstance(net, SyncBatchNorm) else []
    for child in net._children.values():
        found += sync_layers(child)
    return found


def check_sync_batchnorm(devices, env=None, net=None):
    """Refuse SyncBatchNorm that would wait forever (ValueError with the fix): on CPU
    contexts the engine cannot run side by side, or (with ``net``) on a number of devices
    other than the ``num_devices`` its layers were built for."""
    if net is not None:
        layers = sync_layers(net)
        if not layers:
            return
        wrong = [layer._kwargs["ndev"] for layer in layers if layer._kwargs["ndev"] != len(devices)]
        if wrong:
            raise ValueError(f"this net's SyncBatchNorm layers were built for num_devices="
                             f"{wrong[0]} but it trains on {len(devices)} devices: each layer "
                             f"waits for num_devices shards, so build it with "
                             f"num_devices={len(devices)}")
    cpus = [d for d in devices if str(d).startswith("cpu")]
    if not cpu_threads_ok(len(cpus), env):
        least = required(len(cpus))
        raise ValueError(
            f"SyncBatchNorm on {len(cpus)} CPU contexts needs MXNet's engine settings "
            f"{THREADS_VAR} >= {least[THREADS_VAR]} and {TEMP_VAR} >= {least[TEMP_VAR]}, or "
            f"its barrier waits forever (see tutorial.engine). Restart the kernel and, "
            f"before importing mxnet, run tutorial.engine.allow_sync_batchnorm({len(cpus)}) "
            f"(or set both in the environment); or use norm='batch'.")


def check_even_shards(batch_size, devices, synced):
    """Refuse a batch that does not split evenly when the net has SyncBatchNorm (``synced``).

    MXNet's SyncBatchNorm averages the devices' means and variances with equal weights, so
    with shards of unequal size its statistics are not the whole batch's: a silent error.

    >>> check_even_shards(10, ["cpu(0)", "cpu(1)", "cpu(2)"], synced=True)
    Traceback (most recent call last):
    ...
    ValueError: a batch of 10 splits unevenly over 3 devices (4, 3, 3 samples), and SyncBatchNorm weighs every device's statistics equally, which is then not the whole batch's: use a batch size divisible by 3 (9 or 12).
    """
    k = len(devices)
    if synced and batch_size % k:
        from tutorial.parallel.collectives.schedule import chunk_bounds   # the split's rule
        low = batch_size // k
        sizes = ", ".join(str(stop - start) for start, stop in chunk_bounds(batch_size, k))
        raise ValueError(f"a batch of {batch_size} splits unevenly over {k} devices ({sizes} "
                         f"samples), and SyncBatchNorm weighs every device's statistics "
                         f"equally, which is then not the whole batch's: use a batch size "
                         f"divisible by {k} ({low * k or k} or {(low + 1) * k}).")
