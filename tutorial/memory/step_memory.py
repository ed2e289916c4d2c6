"""What one device holds between two steps and at the worst moment of a step, counted.

:func:`~tutorial.memory.footprint.footprint` gives the most bytes of each *kind* a device
holds. Those maxima fall at different moments (the activations are largest at the end of
the forward, the gradients at the end of the backward), so their sum overstates what the
device ever holds at once. This module walks one step of
:class:`~tutorial.memory.zero.ZeroTrainer` moment by moment, as the trainer allocates and
lets go (:meth:`~tutorial.memory.zero.ZeroTrainer.step`), and returns

- ``between``: what stays between two steps: the weights (stage 3: the own shards), the
  optimizer's state and its **workspace** (the course's optimizers keep two arrays, ``u``
  and ``scratch``, per shape they update, so as not to allocate them every step:
  :func:`workspace_copies` reads that from the optimizer itself);
- ``peak``: the most bytes held at once during a step (all kinds together), and ``at``,
  the moment it happens.

It counts the arrays the step keeps (``ZeroTrainer``'s ledger must agree exactly: a test
checks it), not what an operator allocates inside itself for a moment.
:mod:`tutorial.memory.resident` measures the machine beside it.

A 3 -> 4 -> 2 MLP (26 parameters, 104 bytes) with Adam on 2 devices, batch 4: stage 0
keeps weights (104), Adam's two copies (208) and two workspace copies (208, one per shape:
the 4 x 3 and 2 x 4 weights, the 4 and 2 biases); its peak adds the whole gradients at the
end of the backward and the activations still alive then:

>>> [tuple(m) for m in step_memory([3, 4, 2], batch=4, devices=2, stage=0)]
[(520, 680, 'backward of layer 1'), (520, 680, 'backward of layer 1')]
>>> step_memory([3, 4, 2], batch=4, devices=2, stage=3)[0].between
260
"""

import functools
from typing import NamedTuple

import mxnet as mx
import numpy as np

from tutorial.memory.footprint import ITEMSIZE, state_copies
from tutorial.memory.sharding import shards
from tutorial.validate import check_count


class StepMemory(NamedTuple):
    """Bytes one device holds between steps, at the worst moment of a step, and when."""
    between: int
    peak: int
    at: str


@functools.lru_cache(maxsize=None)
def workspace_copies(optimizer):
    """How many arrays the size of a weight the course's ``optimizer`` keeps between
    updates (its workspace), read from the optimizer after one update."""
    from tutorial.optim.registry import create
    opt, weight = create(optimizer), mx.nd.zeros(8)
    opt.update(0, weight, mx.nd.ones(8), opt.create_state(0, weight))
    keep = opt.workspace() if callable(getattr(opt, "workspace", None)) else []
    return sum(int(a.size) for a in keep) // int(weight.size)


def _sizes(widths):
    """Per parameter (W0, b0, W1, b1, ...): its shape."""
    return [shape for a, b in zip(widths, widths[1:]) for shape in ((b, a), (b,))]


def moments(widths, rows, k, d, stage, copies, work):
    """(elements held between steps, [(moment, elements held), ...]) for device ``d`` (of
    ``k``) with ``rows`` samples, in the order ZeroTrainer's step holds and lets go
    (steady state: the workspace exists)."""
    shapes = _sizes(widths)
    size = [int(np.prod(s)) for s in shapes]
    mine = [shards(n, k)[d].size for n in size]
    updated = set(shapes) if stage == 0 else {(m,) for m in mine}
    base = (sum(mine) if stage == 3 else sum(size)) + \
        copies * (sum(mine) if stage >= 1 else sum(size)) + \
        work * sum(int(np.prod(s)) for s in updated)
    layers = len(widths) - 1
    acts, grads, gathered, out = {-1: rows * widths[0]}, {}, 0, []

    def now(moment):
        out.append((moment, base + sum(acts.values()) + sum(grads.values()) + gathered))

    def shard(i, moment):
        grads[("shard", i)] = mine[i]
        now(moment)
        grads.pop(i)

    now("the input")
    for l in range(layers):
        gathered = size[2 * l] + size[2 * l + 1] if stage == 3 else 0
        if gathered:
            now(f"gather for the forward of layer {l + 1}")
        acts[l] = rows * widths[l + 1]
        now(f"forward of layer {l + 1}")
        gathered = 0
    acts["upstream"] = rows * widths[-1]
    now("the loss's gradient")
    acts.pop(layers - 1)
    for l in reversed(range(layers)):
        gathered = size[2 * l] + size[2 * l + 1] if stage == 3 else 0
        if gathered:
            now(f"gather for the backward of layer {l + 1}")
        for i in (2 * l, 2 * l + 1):
            grads[i] = size[i]
            now(f"backward of layer {l + 1}")
        acts["upstream"] = rows * widths[l] if l > 0 else 0
        now(f"backward of layer {l + 1}")
        acts.pop(l - 1, None)
        gathered = 0
        if stage >= 2:
            for i in (2 * l, 2 * l + 1):
                shard(i, f"reduce-scatter of layer {l + 1}")
    if stage == 1:
        for i in range(len(size)):
            shard(i, f"reduce-scatter of layer {i // 2 + 1}")
    now("update")
    return base, out


def step_memory(widths, batch, devices, stage, optimizer="adam"):
    """One :class:`StepMemory` per device for ZeroTrainer on the MLP ``widths`` (float32),
    ``batch`` samples split over ``devices`` devices as evenly as possible."""
    k = check_count("devices", devices)
    batch = check_count("batch", batch, low=k, what="samples, at least one per device")
    if isinstance(stage, bool) or stage not in (0, 1, 2, 3):
        raise ValueError(f"stage must be a whole number 0, 1, 2 or 3, got {stage!r}")
    copies, work = state_copies(optimizer), workspace_copies(optimizer)
    cuts = np.linspace(0, batch, k + 1).astype(int)
    out = []
    for d in range(k):
        base, walk = moments(list(widths), int(cuts[d + 1] - cuts[d]), k, d, stage, copies,
                             work)
        at, peak = max(walk, key=lambda m: m[1])
        out.append(StepMemory(ITEMSIZE * base, ITEMSIZE * peak, at))
    return out
