"""Library behind the course "From SGD to many GPUs" (MXNet Gluon 1.9.1).

Subpackages, one idea per file:

- ``tutorial.config``   fast mode, read from ``TUTORIAL_FAST`` in one place
- ``tutorial.seeds``    other seeds: ``TUTORIAL_SEED=K`` shifts every seed by K (read in
  one place; importing ``tutorial`` installs the shift when it is set)
- ``tutorial.validate`` the one range and count checker for arguments
- ``tutorial.progress`` one live line for long cells (what runs, how far, time left)
- ``tutorial.devices``  GPUs MXNet can really use (probed once per process), and CPU
  contexts that stand in for them
- ``tutorial.engine``   MXNet engine settings SyncBatchNorm needs on CPU contexts (set
  before ``import mxnet``)
- ``tutorial.batch_checks`` does a batch fit the net: feature count, class labels
- ``tutorial.finite``   the stop at the first NaN/infinity in a loss, gradient or weight
  (every training loop: ``nn.fit``, the trainers, local SGD, the pipeline)
- ``tutorial.data``     offline data sets with checksums
- ``tutorial.optim``    optimizers as small transformations, schedules, the Gluon adapter
- ``tutorial.surfaces`` two-dimensional test functions for watching optimizers move
- ``tutorial.compare``  how far apart two sets of weights are (relative difference)
- ``tutorial.calls``    how many times a block of code calls a function (notebook 13 counts
  the forwards recomputation runs again)
- ``tutorial.nn``       the digits MLP, a small ResNet, the training loop, blocks written
  from scratch (dropout, DropConnect)
- ``tutorial.parallel`` splitting batches, data-parallel trainers, collectives, cost model
- ``tutorial.largebatch`` large-batch training measured: sweeps, critical batch, sharpness
- ``tutorial.viz``      widgets and plots (pure models, views that only draw)
- ``tutorial.quizzes``  each notebook's quiz as data (an explanation per option), the grader
- ``tutorial.memory``   what each device holds and how to shrink it (notebook 13): ZeRO 1-3,
  tensor parallelism, recomputation, mixed precision, overlapping communication with the
  backward pass, the roofline
- ``tutorial.sequence`` long sequences (notebook 14): a transformer block from scratch, tensor
  and sequence parallelism, the online softmax, ring attention
- ``tutorial.experts``  mixture of experts (notebook 14): top-k routing, capacity, the
  load-balancing loss, the all-to-all, experts placed on devices
- ``tutorial.check``    the setup self-check and the exercise checkers
- ``tutorial.d2l_reference`` d2l's own MXNet functions, run as an independent reference
- ``tutorial.fresh_process`` one job in a fresh Python process (a clean engine, the kernel's
  memory counters): its JSON answer, or a sentence when it fails or runs out of time

Around the course, not used by the notebooks:

- ``tutorial.install``  the environment: the MXNet build, the pins per Python, numpy's
  compatibility layer, Horovod's build, NVIDIA's container route (``make lab`` runs it)
- ``tutorial.jupyter``  JupyterLab and the notebooks as files: starting the lab, its settings
  and extension, saved widget frames, executing and checking notebooks, full-size runs
- ``tutorial.deck``     the instructor's deck as a static HTML page that needs no network
"""

__version__ = "0.1.0"

from tutorial.seeds import install_from_env as _install_seed_shift  # noqa: E402

_install_seed_shift()        # TUTORIAL_SEED=K: every seed shifted by K (make test-seeds)
