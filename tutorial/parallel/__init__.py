"""Data-parallel training on several devices, and the collectives that aggregate gradients.

One idea per file:

- ``split``        splitting a batch over devices (uneven splits allowed)
- ``aggregation``  the seam: sum gradients over devices with a kvstore or an allreduce
- ``trainer``      a data-parallel trainer from scratch, in the deck's four steps
- ``concise``      the same with ``gluon.Trainer`` and a kvstore (``update_on_kvstore``)
- ``running_stats`` BatchNorm's running mean and variance on several devices: averaged or not
- ``batchnorm_devices`` BatchNorm over K devices: per-device ("ghost") vs SyncBatchNorm vs
                   one device with the whole batch, one step measured and training compared
- ``throughput``   images/s against the number of devices: tau_K / (K tau_1), real and synthetic
- ``reports``      what one training step reports (loss, accuracy, compute/aggregation time)
- ``live``         the training loop the dashboard draws (a generator of step reports)
- ``step_time``    time per sample against per-device batch, and a compute/communication model
- ``workload``     the digits MLP the data-parallel notebook, dashboard and tests train
- ``equivalence``  K devices x b samples against 1 device x K*b samples, measured
- ``collectives``  parameter server, tree, butterfly and ring allreduce
- ``costmodel``    the alpha-beta cost of each collective
- ``ps``           a real parameter server: ps-lite kvstores on a cluster of local processes
- ``hvd``          Horovod's ring across local processes, and the side-by-side table
- ``hosts``        both over several machines: a host list, ssh, clean stops
- ``async_sgd``    asynchronous SGD simulated exactly: workers of given speeds, one server
- ``least_squares``  the least-squares problems (dense or sparse rows) it is simulated on
- ``local_sgd``    local SGD and post-local SGD: K workers average their weights every H steps
- ``compression``  2-bit gradient quantisation with error feedback
- ``sign_sgd``     signSGD with majority vote (NumPy), the reference for notebook 12's version
- ``compression_study``  training with each way of sending gradients: accuracy, bytes per step
- ``scaling_workload``   the job the local-SGD and compression studies train (held-out accuracy)
- ``pipeline``     model parallelism: a network cut into stages on devices, pipeline
                   schedules (naive, GPipe, 1F1B) run for real, asynchronous pipelining

The public names below are loaded on first use (PEP 562), so that a process which needs
only the standard-library parts (the parameter-server launcher in ``ps.cluster``) does
not pay for importing MXNet.
"""

import importlib

_PUBLIC = {
    "allreduce": "tutorial.parallel.collectives",
    "costmodel": None,                                   # the submodule itself
    "GluonDataParallel": "tutorial.parallel.concise",
    "gluon_trainer": "tutorial.parallel.concise",
    "StepReport": "tutorial.parallel.reports",
    "TrainingDiverged": "tutorial.finite",
    "split_batch": "tutorial.parallel.split",
    "split_sizes": "tutorial.parallel.split",
    "DataParallelTrainer": "tutorial.parallel.trainer",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name):
    if name not in _PUBLIC:
        raise AttributeError(f"module 'tutorial.parallel' has no attribute {name!r}")
    if _PUBLIC[name] is None:
        return importlib.import_module(f"tutorial.parallel.{name}")
    return getattr(importlib.import_module(_PUBLIC[name]), name)
