"""The settings of notebook 08_large_batch, in one place, so its checks test the same runs.

``tests/largebatch/test_largebatch_checks.py`` calls these functions with the notebook's fast-mode
sizes; the notebook calls them with ``tutorial.config.pick`` sizes.
"""

import numpy as np

from tutorial.config import pick
from tutorial.data import load_digits, load_mnist5k, train_val_split
from tutorial.largebatch.critical_batch import fit_critical_batch
from tutorial.largebatch.runs import Dataset
from tutorial.largebatch.sweep import batch_size_sweep

TARGETS = (0.93, 0.95, 0.97)
SGD_LRS = (0.0125, 0.025, 0.05, 0.1, 0.2, 0.4, 0.8)           # momentum 0.9
SCALE_SGD_LRS = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0)            # across input scales
LARS_LRS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)               # eta = 0.001, momentum 0.9
BASE_LR, BASE_BATCH = 0.025, 16                                # the linear-scaling base
NOISE_LR, NOISE_BATCH = 0.05, 64                               # the run B_simple follows


def sizes(env=None):
    """How big each experiment is: fast mode (``TUTORIAL_FAST=1``) or full size."""
    return {
        "sweep_seeds": pick((0, 1, 2), (0,), env),
        "recipe_batches": pick([16, 64, 256, 1024], [16, 128, 1024], env),
        "recipe_steps": pick(400, 250, env),
        "warmup_steps": 100,
        "scales": pick(("standardized", "[0, 1]", "raw 0..16"), ("standardized", "raw 0..16"),
                       env),
        "noise_steps": pick((0, 5, 20, 50, 100, 200, 400, 800), (0, 5, 20, 100, 200), env),
        "minima_seeds": pick(3, 2, env),
        "small_batch_steps": pick(1500, 700, env),
        "large_batch_steps": pick(600, 300, env),
        "mnist_sweep": pick(True, False, env),
    }


def digits(seed=0):
    """scikit-learn's digits, pixels in [0, 1], 80/20 train/validation split."""
    return Dataset(*train_val_split(*load_digits(), val_fraction=0.2, seed=seed))


def mnist5k(seed=0):
    """The 5,000-image MNIST subset, pixels in [0, 1], 80/20 split."""
    return Dataset(*train_val_split(*load_mnist5k(), val_fraction=0.2, seed=seed))


def standardized(data):
    """Each input feature shifted and scaled to mean 0, std 1 on the training set."""
    mean, std = data.X_train.mean(axis=0), data.X_train.std(axis=0) + 1e-3
    return Dataset((data.X_train - mean) / std, data.y_train, (data.X_val - mean) / std,
                   data.y_val)


def input_scales(data):
    """The same digits at three input scales: standardized, [0, 1], raw pixels 0..16."""
    return {"standardized": standardized(data), "[0, 1]": data, "raw 0..16": data.scaled(16.0)}


def sweep_batch_sizes(n_train, smallest=16):
    """Powers of two from ``smallest`` below ``n_train``, then the full training set."""
    sizes = [b for b in 2 ** np.arange(4, 16) if smallest <= b < n_train]
    return [int(b) for b in sizes] + [int(n_train)]


def fit_targets(points, targets=TARGETS):
    """``{target: CriticalBatchFit or None}`` over the batch sizes that reached it."""
    fits = {}
    for t in targets:
        reached = [(p.batch_size, p.steps[t]) for p in points if p.steps[t] is not None]
        try:
            fits[t] = fit_critical_batch(*zip(*reached)) if len(reached) >= 2 else None
        except ValueError:
            fits[t] = None
    return fits


def full_batch_comparison(datasets, targets=TARGETS, max_steps=400):
    """SGD (momentum 0.9) and LARS at full batch on each input scale: one SweepPoint each.

    Returns ``{(scale, optimizer): SweepPoint}``.
    """
    results = {}
    for scale, data in datasets.items():
        for name, lrs in (("momentum", SCALE_SGD_LRS), ("lars", LARS_LRS)):
            (point,) = batch_size_sweep(data, [data.n_train], lrs, targets=targets,
                                        max_steps=max_steps, optimizer=name)
            results[(scale, name)] = point
    return results


def stable_range(point):
    """(smallest, largest) learning rate of a grid that did not diverge, or None."""
    stable = [lr for lr, _, diverged in point.grid if not diverged]
    return (min(stable), max(stable)) if stable else None
