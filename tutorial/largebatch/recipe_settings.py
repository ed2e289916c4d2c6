"""The settings of the large-batch recipes on the CNN notebook (``11_large_batch_cnn``), in one place.

The notebook asks for its sizes through :func:`sizes` (``tutorial.config.pick``); tests
can call the same functions with the fast-mode environment.

>>> sizes({"TUTORIAL_FAST": "1"})["race_batches"]
(256, 4000)
>>> [(p.epochs, p.batch_size, p.lr) for p in plans(6)["grow batch"]]
[(2, 32, 0.05), (2, 128, 0.05), (2, 512, 0.05)]
"""

from tutorial.config import pick
from tutorial.largebatch import phases

# The optimizer race (an MLP 784-128-128-10 on MNIST-5k): each contender's rate at BASE_BATCH
RACE_BASE_LRS = {"sgd": 0.05, "lars": 4.0, "adam": 0.002, "lamb": 0.01}
BASE_BATCH, RACE_TARGET = 32, 0.92
RACE_EPOCHS = {32: 4, 256: 12, 1000: 30, 4000: 60}    # a cap per batch size
# LARS leaves biases out of its trust ratio; they step at SGD's rate, not LARS's raw rate
RACE_EXTRA_KW = {"lars": {"bias_lr_mult": RACE_BASE_LRS["sgd"] / RACE_BASE_LRS["lars"]}}

# Warm start and batch growth (the ResNet): small batch and rate, large batch and rate
SMALL_BATCH, SMALL_LR = 32, 0.05
LARGE_BATCH, LARGE_LR = 512, 0.2          # 16x the batch, 4x the rate (square-root scaling)
GROWTH = 4                                # batch x4 (or lr / 4) at each third of training


def sizes(env=None):
    """How big each experiment is: fast mode (``TUTORIAL_FAST=1``) or full size."""
    return {
        "race_batches": pick((32, 256, 1000, 4000), (256, 4000), env),
        "race_multipliers": pick((0.25, 0.5, 1.0, 2.0, 4.0), (0.5, 1.0, 2.0), env),
        "plan_epochs": pick(6, 3, env),
    }


def plans(epochs):
    """The four plans of the warm-start and batch-growth comparison, ``epochs`` each."""
    thirds = (epochs // 3, 2 * epochs // 3)
    return {
        "large batch": phases.constant(epochs, LARGE_BATCH, LARGE_LR),
        "warm start": phases.warm_start(epochs, SMALL_BATCH, LARGE_BATCH, 1, SMALL_LR, LARGE_LR),
        "decay lr": phases.decay_lr(epochs, SMALL_BATCH, SMALL_LR, thirds, GROWTH),
        "grow batch": phases.grow_batch(epochs, SMALL_BATCH, SMALL_LR, thirds, GROWTH),
    }
