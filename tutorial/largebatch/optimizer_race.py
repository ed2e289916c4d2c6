"""LAMB vs LARS vs Adam vs SGD at growing batch: steps to a target, each at its best rate.

Each contender brings its own scaling rule from a base batch (You et al. 2019 scale LAMB
by the square root; Goyal et al. scale SGD linearly):

==========  =================================  ==============
contender   optimizer (``tutorial.optim``)      scaling rule
==========  =================================  ==============
sgd         'momentum' (0.9)                   linear
lars        'lars' (momentum 0.9, eta 0.001)    linear
adam        'adam'                             square root
lamb        'lamb'                             square root
==========  =================================  ==============

At batch B each contender is tuned on a small grid: its base rate scaled to B by its rule,
times each of ``multipliers``. Every run trains the same initial weights on the same
batch order (:func:`tutorial.largebatch.plan_runs.train_plan`) until it reaches the target
validation accuracy, diverges, or runs out of epochs; the contender's result at B is the
fewest steps over its grid, and when no rate reached the target its outcome says why
(every rate diverged, or some ran to the cap). A best rate at the edge of the grid is
flagged: a wider grid might have done better.

>>> grid_lrs("adam", base_lr=0.001, base_batch=32, batch_size=128, multipliers=(0.5, 1, 2))
(0.001, 0.002, 0.004)
>>> grid_lrs("sgd", base_lr=0.05, base_batch=32, batch_size=128, multipliers=(1,))
(0.2,)
"""

import dataclasses
from typing import Dict, Optional, Tuple

from tutorial.largebatch.phases import constant
from tutorial.largebatch.plan_runs import train_plan
from tutorial.optim.scaling import scaled_lr
from tutorial.progress import Progress
from tutorial.validate import check_count

# contender -> (optimizer name for tutorial.optim.create, its keywords, scaling rule)
CONTENDERS = {
    "sgd": ("momentum", {"momentum": 0.9}, "linear"),
    "lars": ("lars", {"momentum": 0.9, "eta": 0.001}, "linear"),
    "adam": ("adam", {}, "sqrt"),
    "lamb": ("lamb", {}, "sqrt"),
}


@dataclasses.dataclass(frozen=True)
class RacePoint:
    contender: str
    batch_size: int
    steps: Optional[int]                     # fewest steps to target over the grid, or None
    best_lr: Optional[float]
    at_grid_edge: bool                       # the best rate is the grid's smallest or largest
    final_val_acc: float                     # of the best run (the best accuracy if none reached)
    grid: Tuple[Tuple[float, Optional[int], bool], ...]   # (lr, steps to target, diverged)

    @property
    def outcome(self):
        """'reached' (some rate of the grid reached the target), 'diverged' (every rate
        diverged) or 'not reached' (some rate ran to its cap of epochs without reaching it)."""
        if self.steps is not None:
            return "reached"
        return "diverged" if all(diverged for *_, diverged in self.grid) else "not reached"


def grid_lrs(contender, base_lr, base_batch, batch_size, multipliers):
    """The rates tried at ``batch_size``: base rate scaled by the contender's rule, times each
    multiplier."""
    if contender not in CONTENDERS:
        raise ValueError(f"unknown contender {contender!r}: use one of {', '.join(CONTENDERS)}")
    centre = scaled_lr(CONTENDERS[contender][2], base_lr, base_batch, batch_size)
    return tuple(round(centre * m, 10) for m in multipliers)


def _point(contender, batch_size, runs):
    grid = tuple((lr, r.steps_to_target, r.diverged) for lr, r in runs)
    done = [(r.steps_to_target, lr, r) for lr, r in runs if r.steps_to_target is not None]
    if done:
        steps, lr, best = min(done, key=lambda d: (d[0], d[1]))
    else:
        steps, lr = None, None
        best = max((r for _, r in runs), key=lambda r: r.final_val_acc if r.evals else -1)
    edge = lr is not None and lr in (runs[0][0], runs[-1][0])
    return RacePoint(contender, batch_size, steps, lr, edge, best.final_val_acc, grid)


def race(net_factory, data, batch_sizes, base_lrs, base_batch, multipliers=(0.5, 1.0, 2.0),
         target=0.95, max_epochs=4, evals_per_epoch=4, seed=0, extra_kw=None):
    """One :class:`RacePoint` per (contender in ``base_lrs``, batch size).

    ``base_lrs`` maps contender -> its rate at ``base_batch`` (e.g. {'sgd': 0.05, 'lamb':
    0.005}); the contenders run in that order. Each run stops at the target, or after
    ``max_epochs`` epochs (a number, or ``{batch_size: epochs}``: a large batch makes few
    steps per epoch and needs more epochs). ``extra_kw`` maps a contender to keywords
    added to its optimizer's (e.g. ``{'lars': {'bias_lr_mult': 0.0125}}``).
    """
    extra_kw = extra_kw or {}
    unknown = sorted((set(base_lrs) | set(extra_kw)) - set(CONTENDERS))
    if unknown:
        raise ValueError(f"unknown contender(s) {unknown}: use some of {', '.join(CONTENDERS)}")
    epochs = max_epochs if isinstance(max_epochs, dict) else {b: max_epochs for b in batch_sizes}
    if set(epochs) != set(batch_sizes):
        raise ValueError(f"max_epochs must be a whole number or give one per batch size "
                         f"{list(batch_sizes)}, got {max_epochs!r}")
    for b in batch_sizes:
        check_count(f"max_epochs[{b}]", epochs[b])
    if not multipliers or sorted(multipliers) != list(multipliers):
        raise ValueError(f"multipliers must be increasing factors such as (0.5, 1, 2), "
                         f"got {multipliers!r}")
    points = []
    progress = Progress("optimizer race", len(base_lrs) * len(batch_sizes))
    for batch_size in batch_sizes:
        for contender, base_lr in base_lrs.items():
            name, kw, _ = CONTENDERS[contender]
            runs = []
            for lr in grid_lrs(contender, base_lr, base_batch, batch_size, multipliers):
                runs.append((lr, train_plan(net_factory, data, constant(epochs[batch_size], batch_size, lr),
                                            optimizer=name, target=target,
                                            optimizer_kw={**kw, **extra_kw.get(contender, {})},
                                            stop_at_target=True, evals_per_epoch=evals_per_epoch,
                                            seed=seed)))
            points.append(_point(contender, batch_size, runs))
            progress.advance(f"{contender}, batch {batch_size}")
    return points


def race_table(points):
    """``{batch_size: {contender: steps or None}}``, in the order the points came."""
    table: Dict[int, Dict[str, Optional[int]]] = {}
    for p in points:
        table.setdefault(p.batch_size, {})[p.contender] = p.steps
    return table
