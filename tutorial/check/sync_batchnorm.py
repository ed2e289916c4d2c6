"""Exercise checker for notebook 11_large_batch_cnn: SyncBatchNorm's statistics from the
devices' own.

Each of K devices holds a shard of the batch and computes, per channel, the mean and the
biased variance of its values and how many values it has. The learner writes
``sync_mean_var(means, variances, counts)``, returning the per-channel mean and biased
variance of the WHOLE batch from those numbers alone: what SyncBatchNorm has to compute
before any device can normalise. Shards may be of unequal size. The reference is NumPy's
mean and variance of the concatenated shards themselves.

A right answer is not shown here (``help()`` on this module would give it away); the
tests check that the instructor's solution passes. A usual mistake is named:

>>> import numpy as np
>>> def averages_only(means, variances, counts):
...     weigh = lambda values: sum(c * x for x, c in zip(values, counts)) / sum(counts)
...     return weigh(means), weigh(variances)
>>> print(check_sync_mean_var(averages_only).text[:60])
Not yet: the spread between the devices' means left out: ave
"""

import numpy as np

from tutorial.check.answers import Wrong, as_array, call
from tutorial.check.feedback import Verdict, checker
from tutorial.check.mistakes import Mistake, first_match, same

RTOL, ATOL = 1e-6, 1e-9


def _shards(sizes, channels, seed):
    """Shards of shape (n, C, 2, 2) whose means differ from device to device."""
    rng = np.random.default_rng(seed)
    return [rng.normal(loc=rng.normal(scale=2.0), size=(n, channels, 2, 2)) for n in sizes]


CASES = (      # (name, shards)
    ("2 equal shards", _shards([4, 4], 3, 0)),
    ("3 unequal shards", _shards([5, 2, 1], 2, 1)),
    ("4 shards of 1 image", _shards([1, 1, 1, 1], 4, 2)),
    ("one device", _shards([6], 2, 3)),
)


def device_statistics(shard):
    """What one device contributes: per-channel mean, biased variance, number of values."""
    return shard.mean(axis=(0, 2, 3)), shard.var(axis=(0, 2, 3)), shard.size // shard.shape[1]


def whole_batch(shards):
    """The reference: mean and biased variance of all shards together, per channel."""
    batch = np.concatenate(shards)
    return batch.mean(axis=(0, 2, 3)), batch.var(axis=(0, 2, 3))


def _weighted(values, counts):
    return sum(c * v for v, c in zip(values, counts)) / sum(counts)


MISTAKES = (   # each with the learner's signature (means, variances, counts)
    Mistake("the spread between the devices' means left out",
            "averaging the variances gives the mean variance WITHIN a shard; the whole "
            "batch also varies because the shards' means differ. Go through the second "
            "moment E[x^2] = variance + mean^2.",
            lambda m, v, c: (_weighted(m, c), _weighted(v, c))),
    Mistake("shards weighed equally",
            "a shard with more values must count more: weigh each device by its count "
            "(MXNet's SyncBatchNorm makes this very simplification, so it needs equal shards).",
            lambda m, v, c: (np.mean(m, axis=0),
                             np.mean([vi + mi ** 2 for mi, vi in zip(m, v)], axis=0)
                             - np.mean(m, axis=0) ** 2)),
    Mistake("variance from unweighted moments",
            "your mean is right, but the variance weighs the shards equally; weigh each "
            "device's second moment by its count too.",
            lambda m, v, c: (_weighted(m, c),
                             np.mean([vi + mi ** 2 for mi, vi in zip(m, v)], axis=0)
                             - _weighted(m, c) ** 2)),
    Mistake("the second moment returned as the variance",
            "E[x^2] is not the variance: subtract the square of the whole batch's mean.",
            lambda m, v, c: (_weighted(m, c),
                             _weighted([vi + mi ** 2 for mi, vi in zip(m, v)], c))),
    Mistake("unbiased variance",
            "BatchNorm's variance divides by the number of values n (biased), not by n - 1.",
            lambda m, v, c: (_weighted(m, c),
                             (_weighted([vi + mi ** 2 for mi, vi in zip(m, v)], c)
                              - _weighted(m, c) ** 2) * sum(c) / (sum(c) - 1))),
)


def _inputs(shards):
    stats = [device_statistics(s) for s in shards]
    return [m for m, _, _ in stats], [v for _, v, _ in stats], [c for _, _, c in stats]


def _read(result, label, channels):
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise Wrong(f"{label} returned {type(result).__name__}; return the pair "
                    f"(mean, variance), each an array with one number per channel")
    return tuple(as_array(r, label, (channels,), what) for r, what in
                 zip(result, ("the mean", "the variance")))


def _answers(function):
    out = []
    for name, shards in CASES:
        label = f"sync_mean_var(...) on the case '{name}'"
        means, variances, counts = _inputs(shards)
        out.append(_read(call(function, label, [m.copy() for m in means],
                              [v.copy() for v in variances], list(counts)),
                         label, shards[0].shape[1]))
    return out


def _agree(got, want):
    return all(same(g, w, RTOL, ATOL) for g, w in zip(got, want))


@checker("sync_mean_var", "sync_mean_var(means, variances, counts) with lists of per-channel "
                          "NumPy arrays and of ints, returning (mean, variance)")
def check_sync_mean_var(sync_mean_var):
    """``sync_mean_var(means, variances, counts)``: the whole batch's statistics."""
    got = _answers(sync_mean_var)
    want = [whole_batch(shards) for _, shards in CASES]
    if _agree(got, want):
        return Verdict(True, f"Correct: your statistics equal those of the whole batch in all "
                             f"{len(CASES)} cases, unequal shards included.")
    mistake = first_match(MISTAKES, got, lambda f: [f(*_inputs(s)) for _, s in CASES],
                          agree=_agree)
    if mistake:
        return mistake.verdict()
    i = next(i for i, (g, w) in enumerate(zip(got, want)) if not same(g, w, RTOL, ATOL))
    part = "mean" if not same(got[i][0], want[i][0], RTOL, ATOL) else "variance"
    raise Wrong(f"on the case '{CASES[i][0]}' your {part} differs from the whole batch's, "
                f"and no usual mistake explains it. Concatenate that case's shards by hand "
                f"and compare")
