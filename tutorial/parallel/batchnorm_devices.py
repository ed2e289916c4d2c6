"""BatchNorm across devices: whose mean and variance normalise a device's shard?

A batch of K*b images on K devices, each with b of them. Three ways to normalise:

- ``ghost``: ``gluon.nn.BatchNorm`` on each device, statistics of its own b images (what
  plain data parallelism gives; Hoffer et al. 2017 call these "ghost batches");
- ``sync``: ``SyncBatchNorm`` on the K devices, statistics of all K*b images;
- ``whole``: ``gluon.nn.BatchNorm`` on ONE device that holds all K*b images.

``sync`` and ``whole`` compute the same function (same outputs, same summed gradients);
``ghost`` does not, and the smaller b, the noisier its statistics. :func:`first_step`
measures that on one batch, :func:`compare_modes` trains all three and returns a table.
SyncBatchNorm averages the K shards' statistics with equal weights, so it needs equal
shards: batches here always split evenly.

In float32, ``whole`` is the less exact of the two. MXNet's BatchNorm on the CPU adds up a
channel's N*H*W values one after another in a float32 sum (its mean and variance, and in
the backward the sums of the gradient and of its product with the centred input), and
such a sum's rounding error grows with the count: with 4 x 32 images of 14 x 14 (25,088
values a channel) the first layer's variances come out up to 2.5e-4 off (relative) and
the summed gradients 4.8e-3, where SyncBatchNorm's (each device reduces its own shard,
then the devices' results are averaged) are 2.3e-6 off (seed 0). So :func:`first_step`
measures every mode, ``whole`` included, against the whole batch computed in float64
(``whole``'s net cast to float64, on the first device): against it ``sync`` differs by
float32 rounding, and ``whole`` by MXNet's float32 sums.

SyncBatchNorm on CPU contexts needs :func:`tutorial.engine.allow_sync_batchnorm` before
MXNet is imported; without it the trainers refuse (a run would hang).
"""

import dataclasses

import numpy as np
from mxnet import gluon

from tutorial.data import load_mnist5k_images, train_val_split
from tutorial.nn.fit import accuracy
from tutorial.nn.resnet import resnet
from tutorial.parallel.split import split_batch
from tutorial.parallel.trainer import DataParallelTrainer, forward_backward, replicate
from tutorial.parallel.workload import mnist_batches
from tutorial.validate import check_count

MODES = ("ghost", "sync", "whole")


def build(mode, devices, seed=0, channels=(8, 16)):
    """``(net, devices it runs on)`` for one of :data:`MODES` (``whole``: the first device)."""
    if mode not in MODES:
        raise ValueError(f"mode={mode!r}: use one of {', '.join(MODES)}")
    if mode == "whole":
        return resnet("batch", seed=seed, channels=channels), list(devices[:1])
    norm = "sync" if mode == "sync" else "batch"
    return resnet(norm, num_devices=len(devices), seed=seed, channels=channels), list(devices)


def outputs_and_gradients(net, devices, X, y):
    """One training-mode forward and backward of ``(X, y)`` split over ``devices``.

    Returns the outputs (NumPy, in batch order) and every weight's gradient summed over
    the devices (NumPy), as the trainers would aggregate them.
    """
    params = [p for p in net.collect_params().values() if p.grad_req != "null"]
    replicate(list(net.collect_params().values()), devices)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    outputs, _ = forward_backward(net, loss_fn, split_batch(X, y, devices))
    scores = np.concatenate([out.asnumpy() for out in outputs])
    grads = [sum(g.asnumpy() for g in p.list_grad()) for p in params]
    return scores, grads


def vector_gap(arrays, reference):
    """``|a - r| / |r|`` with each list of arrays flattened into one vector (Euclidean norm)."""
    a = np.concatenate([np.ravel(x) for x in arrays]).astype(np.float64)
    r = np.concatenate([np.ravel(x) for x in reference]).astype(np.float64)
    return float(np.linalg.norm(a - r) / np.linalg.norm(r))


@dataclasses.dataclass(frozen=True)
class Gap:
    """How far one mode's first step is from the whole batch's in float64 (same batch, weights)."""
    mode: str
    per_device_batch: int
    output_gap: float        # max |scores - exact scores|
    gradient_gap: float      # |g - exact g| / |exact g|, all summed gradients as one vector


def first_step(devices, per_device_batch, seed=0, modes=MODES, channels=(8, 16)):
    """One forward and backward of the same batch in each mode, measured against the whole
    batch computed in float64 on the first device (the module docstring says why)."""
    b = check_count("per_device_batch", per_device_batch, what="images per device")
    X, y = next(mnist_batches(b * len(devices), seed=seed))
    exact, on = build("whole", devices, seed, channels)
    exact.cast("float64")                      # the same float32 weights, summed exactly
    ref_scores, ref_grads = outputs_and_gradients(exact, on, X.astype(np.float64),
                                                  y.astype(np.float64))
    gaps = []
    for mode in modes:
        net, on = build(mode, devices, seed, channels)
        scores, grads = outputs_and_gradients(net, on, X, y)
        gaps.append(Gap(mode, b, float(np.abs(scores - ref_scores).max()),
                        vector_gap(grads, ref_grads)))
    return gaps


@dataclasses.dataclass(frozen=True)
class Run:
    """One training run of :func:`compare_modes`."""
    mode: str
    per_device_batch: int
    devices: int
    normalised_over: int     # images whose statistics normalise each image in training
    steps: int
    train_loss: float        # mean loss over the last tenth of the steps
    val_accuracy: float      # prediction mode (running statistics), held-out images
    losses: tuple = ()       # the training loss of every step, in order


def train_mode(mode, devices, per_device_batch, steps, learning_rate, data, seed=0,
               channels=(8, 16)):
    """Train one mode for ``steps`` steps of K*b images; return its :class:`Run`."""
    X_train, y_train, X_val, y_val = data
    net, on = build(mode, devices, seed, channels)
    trainer = DataParallelTrainer(net, on, learning_rate=learning_rate, momentum=0.9)
    batches = mnist_batches(per_device_batch * len(devices), seed=seed, data=(X_train, y_train))
    losses = [trainer.step(*next(batches), timed=False).loss for _ in range(steps)]
    tail = losses[-max(1, steps // 10):]
    over = per_device_batch if mode == "ghost" else per_device_batch * len(devices)
    return Run(mode, per_device_batch, len(on), over, steps, float(np.mean(tail)),
               accuracy(net, X_val, y_val, ctx=on[0]), tuple(float(x) for x in losses))


def curve_gap(run, reference, steps):
    """The largest ``|loss - reference's loss|`` over the first ``steps`` steps of two runs.

    Two runs that compute the same thing (SyncBatchNorm on K devices and BatchNorm over the
    whole batch) start on the same weights and batches, so their losses agree step by step
    up to float rounding, which grows slowly; a mode that normalises differently (ghost
    BatchNorm) differs from the first step on.

    >>> a = Run("sync", 4, 2, 8, 3, 0.0, 0.0, (2.3, 2.1, 1.9))
    >>> b = Run("whole", 4, 2, 8, 3, 0.0, 0.0, (2.3, 2.15, 1.8))
    >>> round(curve_gap(a, b, 2), 3), round(curve_gap(a, b, 3), 3)
    (0.05, 0.1)
    """
    steps = check_count("steps", steps, what="steps to compare")
    if min(len(run.losses), len(reference.losses)) < steps:
        raise ValueError(f"curve_gap: the runs have {len(run.losses)} and "
                         f"{len(reference.losses)} steps, fewer than the {steps} asked for")
    return float(np.max(np.abs(np.subtract(run.losses[:steps], reference.losses[:steps]))))


def compare_modes(devices, per_device_batches, steps, learning_rate=0.05, seed=0,
                  val_fraction=0.2, modes=MODES, on_run=None):
    """Every mode at every per-device batch, same seed, data and steps: a list of :class:`Run`.

    ``on_run(run)`` is called after each run (for a progress line).
    """
    steps = check_count("steps", steps, what="training steps per run")
    data = train_val_split(*load_mnist5k_images(), val_fraction=val_fraction, seed=seed)
    runs = []
    for b in per_device_batches:
        for mode in modes:
            runs.append(train_mode(mode, devices, check_count("per_device_batch", b), steps,
                                   learning_rate, data, seed))
            if on_run is not None:
                on_run(runs[-1])
    return runs


def as_table(runs):
    """Rows for printing: one per per-device batch, the val accuracy of each mode."""
    rows = {}
    for run in runs:
        rows.setdefault(run.per_device_batch, {"per-device batch": run.per_device_batch})
        rows[run.per_device_batch][f"{run.mode} acc"] = round(run.val_accuracy, 3)
        rows[run.per_device_batch][f"{run.mode} loss"] = round(run.train_loss, 3)
    return list(rows.values())
