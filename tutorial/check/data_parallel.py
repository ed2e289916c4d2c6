"""Exercise checker for notebook 05_data_parallel: combine the devices' gradients.

Each of K devices computed the gradient of its shard's *mean* loss (as
``loss.mean().backward()`` would); the learner writes ``combine_gradients(shard_means,
shard_sizes)``, which returns the gradient of the whole batch's mean loss. The checker
draws per-sample gradients, splits them with ``tutorial.parallel.split_sizes`` (evenly
and unevenly), and compares with the plain NumPy mean over all samples.

>>> import numpy as np
>>> def combine_gradients(shard_means, shard_sizes):
...     sums = [n * np.asarray(g) for g, n in zip(shard_means, shard_sizes)]
...     return sum(sums) / sum(shard_sizes)
>>> print(check_combine_gradients(combine_gradients))
Correct: equals the mean over all samples for 5 splits, even and uneven.
>>> print(check_combine_gradients(lambda means, sizes: np.mean(means, axis=0)).text)
Not yet: mean of the shard means: that is right only when every shard holds the same number of samples. With shards of 3, 3, 2, 2 a sample in a shard of 2 would weigh more than one in a shard of 3.
"""

import numpy as np

from tutorial.check.answers import Wrong, as_array, call
from tutorial.check.feedback import Verdict, checker
from tutorial.check.mistakes import Mistake, first_match, same
from tutorial.parallel.split import split_sizes

CASES = ((10, 4), (30, 4), (64, 8), (7, 2), (5, 1))   # (samples, devices)
FEATURES = 6


def _weighted_sum(means, sizes):
    return sum(n * np.asarray(g, dtype=np.float64) for g, n in zip(means, sizes))


MISTAKES = (
    Mistake("mean of the shard means",
            "that is right only when every shard holds the same number of samples. With "
            "shards of 3, 3, 2, 2 a sample in a shard of 2 would weigh more than one in a "
            "shard of 3.",
            lambda means, sizes: np.mean(np.asarray(means, dtype=np.float64), axis=0)),
    Mistake("sum of the shard means",
            "on an even split that is K times the batch's mean gradient: each step would be "
            "K times too large, as with trainer.step(per-device batch) in section 4.",
            lambda means, sizes: sum(np.asarray(g, dtype=np.float64) for g in means)),
    Mistake("shard sums not divided",
            "you turned every mean back into its shard's sum, but the sum over the whole "
            "batch must still be divided once, by the right number.",
            _weighted_sum),
    Mistake("divided by the number of devices",
            "the sum of the shard sums adds up the gradients of every sample, not of every "
            "device: divide by how many samples it holds.",
            lambda means, sizes: _weighted_sum(means, sizes) / len(sizes)),
    Mistake("divided by the per-device batch",
            "the sum covers the samples of every device, not of one: on an even split each "
            "step would be K times too large.",
            lambda means, sizes: _weighted_sum(means, sizes) / sizes[0]),
    Mistake("one device's gradient",
            "every device must contribute: combine all K shard gradients.",
            lambda means, sizes: np.asarray(means[0], dtype=np.float64)),
)


def _case(samples, devices, seed):
    """Per-device mean gradients, shard sizes, and the mean over every sample."""
    per_sample = np.random.default_rng(seed).normal(size=(samples, FEATURES))
    sizes = split_sizes(samples, devices)
    shards = np.split(per_sample, np.cumsum(sizes)[:-1])
    return [s.mean(axis=0) for s in shards], sizes, per_sample.mean(axis=0)


def _outputs(function, cases, label="combine_gradients"):
    out = []
    for means, sizes, _ in cases:
        text = f"{label}(<{len(sizes)} arrays of shape ({FEATURES},)>, {sizes})"
        result = call(function, text, [m.copy() for m in means], list(sizes))
        out.append(as_array(result, text, (FEATURES,), "the combined gradient"))
    return out


@checker("combine_gradients", "combine_gradients(shard_means, shard_sizes) with a list of K "
                              "NumPy arrays of one shape and a list of K whole numbers, "
                              "returning one array of that shape")
def check_combine_gradients(combine_gradients):
    """``combine_gradients(shard_means, shard_sizes)``: the gradient of the batch's mean loss."""
    cases = [_case(n, k, seed) for seed, (n, k) in enumerate(CASES)]
    got = _outputs(combine_gradients, cases)
    want = [mean for _, _, mean in cases]
    if same(got, want):
        return Verdict(True, f"Correct: equals the mean over all samples for {len(CASES)} "
                             f"splits, even and uneven.")
    mistake = first_match(MISTAKES, got, lambda wrong: _outputs(wrong, cases))
    if mistake:
        return mistake.verdict()
    i = next(i for i, (g, w) in enumerate(zip(got, want)) if not same(g, w))
    sizes = cases[i][1]
    raise Wrong(f"with shards of {', '.join(map(str, sizes))} samples your result is off by "
                f"up to {np.abs(got[i] - want[i]).max():.3g}. Write the batch's mean gradient "
                f"as a sum over its samples, then group that sum by shard")
