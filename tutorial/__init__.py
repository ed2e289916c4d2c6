"""Library behind the course "From SGD to many GPUs" (MXNet Gluon 1.9.1).

Subpackages, one idea per file:

- ``tutorial.config``   fast mode, read from ``TUTORIAL_FAST`` in one place
- ``tutorial.validate`` the one range and count checker for arguments
- ``tutorial.progress`` one live line for long cells (what runs, how far, time left)
- ``tutorial.devices``  GPUs MXNet can really use (probed once per process), and CPU
  contexts that stand in for them
- ``tutorial.engine``   MXNet engine settings SyncBatchNorm needs on CPU contexts (set
  before ``import mxnet``)
- ``tutorial.batch_checks`` does a batch fit the net: feature count, class labels
- ``tutorial.data``     offline data sets with checksums
- ``tutorial.optim``    optimizers as small transformations, schedules, the Gluon adapter
- ``tutorial.surfaces`` two-dimensional test functions for watching optimizers move
- ``tutorial.compare``  how far apart two sets of weights are (relative difference)
- ``tutorial.nn``       the digits MLP, a small ResNet, the training loop, blocks written
  from scratch (dropout, DropConnect)
- ``tutorial.parallel`` splitting batches, data-parallel trainers, collectives, cost model
- ``tutorial.memory``   what each device holds and sends: ZeRO 1-3, tensor parallelism,
  recomputation
- ``tutorial.largebatch`` large-batch training measured: sweeps, critical batch, sharpness
- ``tutorial.viz``      widgets and plots (pure models, views that only draw)
- ``tutorial.quizzes``  each notebook's quiz as data (an explanation per option), the grader
- ``tutorial.check``    the setup self-check and the exercise checkers

Tools around the course, not used by the notebooks:

- ``tutorial.gpu_setup`` put the CPU or the GPU build of MXNet into the virtual environment
- ``tutorial.horovod_setup`` build Horovod once per MXNet build, install it from its cached wheel
- ``tutorial.lab``      start JupyterLab on the course (``make lab``) or the deck (``make slides``)
- ``tutorial.notebooks`` maintainer tools: execute, check and build the notebooks
- ``tutorial.deck``     the instructor's deck as a static HTML page that needs no network
"""

__version__ = "0.1.0"
