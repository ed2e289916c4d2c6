"""Library behind the course "From SGD to many GPUs" (MXNet Gluon 1.9.1).

Subpackages, one idea per file:

- ``tutorial.config``   fast mode, read from ``TUTORIAL_FAST`` in one place
- ``tutorial.validate`` the one range and count checker for arguments
- ``tutorial.progress`` one live line for long cells (what runs, how far, time left)
- ``tutorial.devices``  GPUs MXNet can really use (probed once per process), and CPU
  contexts that stand in for them
- ``tutorial.batch_checks`` does a batch fit the net: feature count, class labels
- ``tutorial.data``     offline data sets with checksums
- ``tutorial.optim``    optimizers as small transformations, schedules, the Gluon adapter
- ``tutorial.compare``  how far apart two sets of weights are (relative difference)
- ``tutorial.nn``       the digits MLP, its training loop, blocks written from scratch
  (dropout, DropConnect)
- ``tutorial.parallel`` splitting batches, data-parallel trainers, collectives, cost model
- ``tutorial.viz``      widgets and plots (pure models, views that only draw)
- ``tutorial.check``    the setup self-check and the exercise checkers
"""

__version__ = "0.1.0"
