"""Steps to a target accuracy against batch size, each batch size at its best learning rate.

Shallue et al.'s (2018) protocol, small: for every batch size train one model per learning
rate of a grid (side by side, :func:`tutorial.largebatch.runs.train_family`), and keep,
per target accuracy, the fewest steps any learning rate needed. A batch size whose best
rate is at the edge of the grid is flagged: the grid may be too narrow there.

With several ``seeds`` (each its own initial weights and batch order) a point keeps the
median over seeds of those fewest steps (the upper median for an even count, so it is
always a measured value), and the rate of the seed that gave it; a target most seeds never
reached is None.
"""

import dataclasses
from typing import Dict, Optional, Tuple

from tutorial.largebatch.runs import train_family
from tutorial.progress import Progress


@dataclasses.dataclass(frozen=True)
class SweepPoint:
    batch_size: int
    steps: Dict[float, Optional[int]]        # target -> fewest steps over the grid
    best_lr: Dict[float, Optional[float]]    # target -> the rate that needed them
    at_grid_edge: bool                        # a best rate (top target) at the grid's min or max
    grid: Tuple[Tuple[float, Dict[float, Optional[int]], bool], ...]  # (lr, steps_to, diverged)


def best_of_grid(runs, targets):
    """Fewest steps per target over ``runs`` (one per learning rate), and their rates."""
    steps, best_lr = {}, {}
    for t in targets:
        done = [(r.steps_to[t], r.lr) for r in runs if r.steps_to.get(t) is not None]
        steps[t], best_lr[t] = min(done) if done else (None, None)
    return steps, best_lr


def _median_over_seeds(per_seed, targets):
    steps, best_lr = {}, {}
    for t in targets:
        ranked = sorted(per_seed, key=lambda sb: float("inf") if sb[0][t] is None else sb[0][t])
        median_steps, median_lr = ranked[len(ranked) // 2]
        steps[t], best_lr[t] = median_steps[t], median_lr[t]
    return steps, best_lr


def batch_size_sweep(data, batch_sizes, lrs, targets=(0.93, 0.95, 0.97), max_steps=3000,
                     seeds=(0,), optimizer="momentum", optimizer_kw=None):
    """One :class:`SweepPoint` per batch size, in the order given (grid: the first seed's)."""
    if not seeds:
        raise ValueError("seeds must name at least one seed, e.g. seeds=(0,)")
    points = []
    progress = Progress(f"batch-size sweep, {len(lrs)} rates each", len(batch_sizes) * len(seeds))
    for batch_size in batch_sizes:
        per_seed, grid, edge = [], None, False
        for seed in seeds:
            progress.advance(f"batch {batch_size}, seed {seed}", by=0)
            runs = train_family(data, batch_size, lrs, optimizer=optimizer,
                                optimizer_kw=optimizer_kw, targets=targets,
                                max_steps=max_steps, seed=seed, stop="best")
            per_seed.append(best_of_grid(runs, targets))
            top = per_seed[-1][1][max(targets)]
            edge |= top is not None and top in (min(lrs), max(lrs))
            grid = grid or tuple((r.lr, dict(r.steps_to), r.diverged) for r in runs)
            progress.advance(f"batch {batch_size}, seed {seed}")
        steps, best_lr = _median_over_seeds(per_seed, targets)
        points.append(SweepPoint(batch_size, steps, best_lr, edge, grid))
    return points


def steps_table(points, targets):
    """Rows ``(batch_size, steps per target..., best lr per target...)`` for printing."""
    return [(p.batch_size, *(p.steps[t] for t in targets), *(p.best_lr[t] for t in targets))
            for p in points]
