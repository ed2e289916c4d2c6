"""Steps to a target accuracy against batch size, each batch size at its best learning rate.

Shallue et al.'s (2018) protocol, small: for every batch size train one model per learning
rate of a grid (side by side, :func:`tutorial.largebatch.runs.train_family`), and keep,
per target accuracy, the fewest steps any learning rate needed. A batch size whose best
rate is at the edge of the grid is flagged: the grid may be too narrow there.
"""

import dataclasses
from typing import Dict, Optional, Tuple

from tutorial.largebatch.runs import train_family


@dataclasses.dataclass(frozen=True)
class SweepPoint:
    batch_size: int
    steps: Dict[float, Optional[int]]        # target -> fewest steps over the grid
    best_lr: Dict[float, Optional[float]]    # target -> the rate that needed them
    at_grid_edge: bool                        # best rate (top target) is the grid's min or max
    grid: Tuple[Tuple[float, Dict[float, Optional[int]], bool], ...]  # (lr, steps_to, diverged)


def best_of_grid(runs, targets):
    """Fewest steps per target over ``runs`` (one per learning rate), and their rates."""
    steps, best_lr = {}, {}
    for t in targets:
        done = [(r.steps_to[t], r.lr) for r in runs if r.steps_to.get(t) is not None]
        steps[t], best_lr[t] = min(done) if done else (None, None)
    return steps, best_lr


def batch_size_sweep(data, batch_sizes, lrs, targets=(0.93, 0.95, 0.97), max_steps=3000,
                     seed=0, optimizer="momentum", optimizer_kw=None):
    """One :class:`SweepPoint` per batch size, in the order given."""
    points = []
    for batch_size in batch_sizes:
        runs = train_family(data, batch_size, lrs, optimizer=optimizer,
                            optimizer_kw=optimizer_kw, targets=targets, max_steps=max_steps,
                            seed=seed, stop="best")
        steps, best_lr = best_of_grid(runs, targets)
        top = best_lr[max(targets)]
        edge = top is not None and top in (min(lrs), max(lrs))
        grid = tuple((r.lr, dict(r.steps_to), r.diverged) for r in runs)
        points.append(SweepPoint(batch_size, steps, best_lr, edge, grid))
    return points


def steps_table(points, targets):
    """Rows ``(batch_size, steps per target..., best lr per target...)`` for printing."""
    return [(p.batch_size, *(p.steps[t] for t in targets), *(p.best_lr[t] for t in targets))
            for p in points]
