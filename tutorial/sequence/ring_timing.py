"""Ring attention's load, measured: the seconds each device computes at each step.

The schedule (:mod:`tutorial.sequence.ring_schedule`) *counts* the work under a causal
mask: the query-key pairs that attend (``work``), and the pairs a device computes
(``computed``): the executor computes a device's ranges of queries against the block's
ranges of keys as tiles, skips a tile masked whole, and computes a partly masked tile
whole before masking it. :func:`time_ring` runs
the same schedule on real arrays and *measures* each device's part of each step with a
clock, waiting for its arrays to be ready: the devices are CPU contexts taking turns on
this machine's cores (on GPUs they would run at once), so a device's seconds are its own
work, and a step of the real ring would last as long as its busiest device, which
:func:`critical_path` adds up from the measurements (a model built on measured times).

The clock (:func:`clock_for`): on CPU contexts, the process's CPU time, the seconds the
kernel counts this process on a core (all its threads: MXNet's engine and OpenMP
workers), so another program taking the cores in the middle of a device's turn does not
land on that device's bill, as it would on a wall clock (it did: one CI run measured the
balanced zig-zag ring at 1.6x its mean while a second notebook ran beside it). On GPUs,
whose work the CPU does not do, the wall clock.

>>> t = time_ring(64, 2, causal=True, heads=1, head_dim=8, repeats=1)
>>> t.seconds.shape, float(t.seconds[1, 0])          # device 0 skips device 1's keys
((2, 2), 0.0)
>>> computed(t.plan)                 # device 0: its own block; device 1: both
[1024, 2048]
"""

import time
from typing import NamedTuple

import mxnet as mx
import numpy as np

from tutorial.sequence.online_softmax import merge
from tutorial.sequence.ring_attention import attend, pass_on, split_sequence
from tutorial.sequence.ring_schedule import FULLY, RingSchedule, computed, schedule
from tutorial.validate import check_count

MAX_ELEMENTS = 2 ** 26     # the largest score block allowed: 256 MB of float32
MAX_INPUT = 2 ** 24        # the most numbers in each of queries, keys, values (drawn in float64)


class Timed(NamedTuple):
    plan: RingSchedule
    seconds: np.ndarray    # (steps, devices): median over repeats; 0.0 where it skipped
    clock: str             # "CPU" (the process's CPU seconds) or "wall"


def clock_for(contexts):
    """``("CPU", time.process_time)`` if every context is a CPU, else
    ``("wall", time.perf_counter)``. (On Windows the CPU clock ticks every 15.6 ms or so,
    coarse against a step of a few tens of milliseconds: time longer sequences there.)"""
    if all(c.device_type == "cpu" for c in contexts):
        return "CPU", time.process_time
    return "wall", time.perf_counter


def critical_path(seconds):
    """Seconds of the ring if each step lasts as long as its busiest device (a model on
    measured times: the steps' maxima, added)."""
    return float(np.asarray(seconds).max(axis=1).sum())


def imbalance(per_device):
    """The busiest device's total over the mean: 1.0 is balanced."""
    per_device = np.asarray(per_device, dtype=float)
    return float(per_device.max() / per_device.mean())


def _check_size(seq_len, devices, batch, heads, head_dim):
    for name, value in (("seq_len", seq_len), ("devices", devices), ("batch", batch),
                        ("heads", heads), ("head_dim", head_dim)):
        check_count(name, value)
    numbers = batch * heads * seq_len * head_dim
    if numbers > MAX_INPUT:
        raise ValueError(f"queries, keys and values would hold {numbers:,} numbers each "
                         f"(batch x heads x seq_len x head_dim), more than {MAX_INPUT:,}: use a "
                         f"shorter seq_len, fewer heads or a smaller head_dim")
    block = -(-seq_len // devices)
    elements = batch * heads * block * block
    if elements > MAX_ELEMENTS:
        raise ValueError(f"a device's block of scores would hold {elements:,} numbers "
                         f"(batch x heads x {block}^2), more than {MAX_ELEMENTS:,}: use a "
                         f"shorter seq_len, more devices or fewer heads")


def _one_run(plan, queries, keys, values, clock):
    seconds = np.zeros((len(plan.steps), plan.num_devices))
    blocks = list(zip(keys, values))
    partials = [None] * plan.num_devices
    for s, step in enumerate(plan.steps):
        for w in step:
            if w.mask == FULLY:
                continue
            start = clock()
            p = attend(plan, w, queries[w.device], *blocks[w.device])
            p = p if partials[w.device] is None else merge(partials[w.device], p)
            for x in p:
                x.wait_to_read()
            seconds[s, w.device] = clock() - start
            partials[w.device] = p
        blocks = pass_on(step, queries, blocks)
        mx.nd.waitall()
    return seconds


def time_ring(seq_len, devices, causal=True, placement="plain", batch=1, heads=4,
              head_dim=64, repeats=3, seed=0):
    """Run ring attention ``repeats`` times on ``devices`` CPU contexts (or a list of
    contexts) and return each device's measured seconds per step, the median, on the
    clock :func:`clock_for` picks."""
    contexts = devices if isinstance(devices, (list, tuple)) else \
        [mx.cpu(i) for i in range(check_count("devices", devices))]
    _check_size(seq_len, len(contexts), batch, heads, head_dim)
    repeats = check_count("repeats", repeats)
    plan = schedule(seq_len, len(contexts), causal, placement)
    rng = np.random.default_rng(seed)
    full = [mx.nd.array(rng.normal(size=(batch, heads, seq_len, head_dim)))
            for _ in range(3)]
    q, k, v = (split_sequence(x, contexts, placement) for x in full)
    name, clock = clock_for(contexts)
    _one_run(plan, q, k, v, clock)                       # warm up: allocations, kernels
    runs = [_one_run(plan, q, k, v, clock) for _ in range(repeats)]
    return Timed(plan, np.median(np.stack(runs), axis=0), name)
