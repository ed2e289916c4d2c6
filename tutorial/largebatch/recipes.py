"""Fixed lr, linear scaling, warmup with and without Goyal's momentum correction.

The recipe under test is Goyal et al.'s (2017): a rate ``base_lr`` known to work at
``base_batch``; for batch B use K = B / base_batch times that rate, and reach it by a
linear warmup. Three runs per batch size, all from the same initial weights on the same
batches, for a fixed number of steps (no early stop, so a divergence shows in the curve):

- ``fixed``:  base_lr whatever the batch (no scaling)
- ``linear``: K * base_lr from the first step
- ``warmup``: from base_lr up to K * base_lr over ``warmup_steps`` steps, then constant
- ``warmup_corrected``: the same warmup with Goyal et al.'s momentum correction: when the
  rate goes from lr_t to lr_{t+1} the momentum buffer (which holds past steps with their
  rates folded in, MXNet's convention) is scaled by lr_{t+1} / lr_t, so the step equals
  lr_{t+1} times the momentum of the raw gradients (the form with lr outside the buffer).
  During a warmup every ratio is above 1: old gradients are re-weighted to the new rate.
  (``tutorial.optim.transforms.Trace`` keeps the previous rate in its own state.)

All runs use heavy-ball momentum 0.9 (``tutorial.optim`` 'momentum').
"""

import dataclasses
from typing import Optional, Tuple

from tutorial.largebatch.runs import train_family
from tutorial.optim.scaling import linear_scaled_lr, warmup_scaled
from tutorial.progress import Progress
from tutorial.validate import check_count, check_range

RULES = ("fixed", "linear", "warmup", "warmup_corrected")


@dataclasses.dataclass(frozen=True)
class RecipeRun:
    rule: str
    batch_size: int
    peak_lr: float
    steps_to_target: Optional[int]
    diverged: bool
    final_val_acc: float
    train_loss: Tuple[float, ...]
    val_acc: Tuple[float, ...]


def _record(rule, batch_size, peak_lr, run, target):
    return RecipeRun(rule, batch_size, peak_lr, run.steps_to[target], run.diverged,
                     run.val_acc[-1], run.train_loss, run.val_acc)


def compare_recipes(data, batch_sizes, base_lr=0.025, base_batch=16, warmup_steps=100,
                    steps=300, target=0.95, seed=0):
    """One :class:`RecipeRun` per (batch size, rule), batch sizes in the order given."""
    check_range("base_lr", base_lr, 0.0, low_open=True)
    check_count("base_batch", base_batch)
    check_count("warmup_steps", warmup_steps)
    check_count("steps", steps)
    check_range("target", target, 0.0, 1.0, low_open=True)
    if warmup_steps >= steps:
        raise ValueError(f"warmup_steps ({warmup_steps}) must be fewer than steps ({steps}), "
                         f"or the runs never train at the scaled rate")
    results = []
    progress = Progress("fixed, linear and warmup runs (with and without correction)",
                        len(batch_sizes))
    for batch_size in batch_sizes:
        progress.advance(f"batch {batch_size}", by=0)
        peak = linear_scaled_lr(base_lr, base_batch, batch_size)
        fixed, linear = train_family(data, batch_size, [base_lr, peak], targets=(target,),
                                     max_steps=steps, seed=seed, stop="never")
        ramp = warmup_scaled(base_lr, base_batch, batch_size, warmup_steps)
        warm = {}
        for rule, corrected in (("warmup", False), ("warmup_corrected", True)):
            (warm[rule],) = train_family(data, batch_size, [1.0], targets=(target,),
                                         max_steps=steps, seed=seed, stop="never", schedule=ramp,
                                         optimizer_kw={"momentum": 0.9,
                                                       "momentum_correction": corrected})
        results += [_record("fixed", batch_size, base_lr, fixed, target),
                    _record("linear", batch_size, peak, linear, target)]
        results += [_record(rule, batch_size, peak, run, target) for rule, run in warm.items()]
        progress.advance(f"batch {batch_size}")
    return results
