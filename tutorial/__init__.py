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
- ``tutorial.check``    the setup self-check and the exercise checkers
- ``tutorial.d2l_reference`` d2l's own MXNet functions, run as an independent reference

Tools around the course, not used by the notebooks:

- ``tutorial.gpu_setup`` put the CPU or the GPU build of MXNet into the virtual environment
- ``tutorial.arch``     what the set-up chooses by machine (x86-64 or arm64): GPU build, numeric
  configurations
- ``tutorial.arm64_blas`` on arm64, point MXNet's wheel at the distribution's OpenBLAS in place of
  the Arm Performance Libraries it names
- ``tutorial.preinstalled`` the course beside an MXNet the interpreter already has (NVIDIA's
  container: ``make lab MXNET=preinstalled``)
- ``tutorial.numpy_aliases`` give MXNet the numpy aliases numpy 1.24 removed, in every process
  of the environment (a ``.pth`` hook the set-up installs)
- ``tutorial.wheel_cache`` wheels built from source once (numpy on Python 3.13, Horovod)
- ``tutorial.horovod_setup`` build Horovod once per MXNet build, install it from its cached wheel
- ``tutorial.lab``      start JupyterLab on the course (``make lab``) or the deck (``make slides``)
- ``tutorial.lab_settings`` the course's JupyterLab settings (widget state saved, no news prompt)
- ``tutorial/labextension`` the course's JupyterLab extension, plain JavaScript loaded by
  ``tutorial.lab``: a notebook nobody changed shows no unsaved dot
- ``tutorial.widget_frames`` a save hook that keeps each widget's saved frame when a save would drop it
- ``tutorial.notebooks`` maintainer tools: execute, check and build the notebooks
- ``tutorial.shown_checks`` the failed checks and errors a notebook's outputs show
- ``tutorial.notebook_runs`` run notebooks without saving them: at full size (``make
  test-full``, which also times them for the README's course map, ``tutorial.course_map``)
  and under other seeds (``make test-seeds``)
- ``tutorial.deck``     the instructor's deck as a static HTML page that needs no network
"""

__version__ = "0.1.0"

from tutorial.seeds import install_from_env as _install_seed_shift  # noqa: E402

_install_seed_shift()        # TUTORIAL_SEED=K: every seed shifted by K (make test-seeds)
