"""Data-parallel training on several devices, and the collectives that aggregate gradients.

One idea per file:

- ``split``        splitting a batch over devices (uneven splits allowed)
- ``aggregation``  the seam: sum gradients over devices with a kvstore or an allreduce
- ``trainer``      a data-parallel trainer from scratch, in the deck's four steps
- ``concise``      the same with ``gluon.Trainer`` and a kvstore (``update_on_kvstore``)
- ``reports``      what one training step reports (loss, accuracy, compute/aggregation time)
- ``live``         the training loop the dashboard draws (a generator of step reports)
- ``step_time``    time per sample against per-device batch, and a compute/communication model
- ``workload``     the digits MLP the data-parallel notebook, dashboard and tests train
- ``equivalence``  K devices x b samples against 1 device x K*b samples, measured
- ``collectives``  parameter server, tree, butterfly and ring allreduce
- ``costmodel``    the alpha-beta cost of each collective
"""

from . import costmodel
from .collectives import allreduce

from tutorial.parallel.concise import GluonDataParallel, gluon_trainer  # noqa: E402,F401
from tutorial.parallel.reports import StepReport, TrainingDiverged  # noqa: E402,F401
from tutorial.parallel.split import split_batch, split_sizes  # noqa: E402,F401
from tutorial.parallel.trainer import DataParallelTrainer  # noqa: E402,F401
