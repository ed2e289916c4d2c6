"""Figures of notebook 08_large_batch: drawing only, from results computed elsewhere."""

import matplotlib.pyplot as plt
import numpy as np

from tutorial.viz.log_axes import readable_log_axis


def steps_vs_batch(points, targets, fits, ax=None):
    """Steps to each target (markers) against batch size, the fitted S(B) and B_crit."""
    ax = ax or plt.subplots(figsize=(6.5, 4.2))[1]
    B_all = np.array([p.batch_size for p in points], dtype=float)
    grid = np.geomspace(B_all.min(), B_all.max(), 100)
    for target, colour in zip(targets, ("tab:blue", "tab:orange", "tab:green", "tab:red")):
        B = [p.batch_size for p in points if p.steps[target] is not None]
        S = [p.steps[target] for p in points if p.steps[target] is not None]
        ax.loglog(B, S, "o", color=colour, label=f"{target:.0%} reached")
        fit = fits.get(target)
        if fit is not None:
            ax.loglog(grid, fit.steps(grid), "-", color=colour, alpha=0.7,
                      label=f"fit: S_min={fit.s_min:.0f}, B_crit={fit.b_crit:.0f}")
            ax.axvline(fit.b_crit, color=colour, ls=":", alpha=0.6)
    if points and points[0].steps[targets[-1]]:
        s0 = points[0].steps[targets[-1]]
        floor = min(s for p in points for s in p.steps.values() if s) / 2
        line = grid[s0 * B_all[0] / grid >= floor]
        ax.loglog(line, s0 * B_all[0] / line, "k--", alpha=0.4, label="perfect scaling (S ~ 1/B)")
    ax.set_xlabel("batch size B")
    ax.set_ylabel("steps to target (best lr of the grid)")
    ax.legend(fontsize=8)
    return ax


def recipe_curves(results, batch_size, ax=None):
    """Training loss per step for each recipe at one batch size; divergence marked with x."""
    ax = ax or plt.subplots(figsize=(6.5, 4))[1]
    for r in (r for r in results if r.batch_size == batch_size):
        loss = np.array(r.train_loss, dtype=float)
        finite = np.isfinite(loss)
        line, = ax.semilogy(np.arange(1, len(loss) + 1)[finite], loss[finite],
                            label=f"{r.rule} (peak lr {r.peak_lr:g})", alpha=0.85)
        if r.diverged:
            worst = int(np.nanargmax(np.where(finite, loss, np.nan)))
            ax.plot(worst + 1, loss[worst], "x", ms=12, mew=3, color=line.get_color())
    ax.axhline(np.log(10), color="grey", ls=":", label="chance (ln 10)")
    ax.set_xlabel("step")
    ax.set_ylabel("training loss (minibatch)")
    ax.set_title(f"batch {batch_size}")
    ax.legend(fontsize=8)
    return ax


def noise_scale_curve(series_by_label, ax=None):
    """B_simple against training step, one line per label."""
    ax = ax or plt.subplots(figsize=(6, 3.8))[1]
    for label, series in series_by_label.items():
        steps = [max(s, 0.5) for s, _ in series]           # step 0 drawn at 0.5 on a log axis
        ax.loglog(steps, [ns.b_simple for _, ns in series], "o-", label=label)
    ax.set_xlabel("training step (0 drawn at 0.5)")
    ax.set_ylabel("B_simple = tr(Sigma) / |G|^2")
    ax.legend(fontsize=8)
    return ax


def interpolation(alphas, curves, label_a, label_b):
    """Train loss and validation accuracy along the line from solution a to solution b."""
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(11, 3.8))
    for seed, (train_loss, val_acc) in enumerate(curves):
        ax_loss.semilogy(alphas, train_loss, "o-", ms=3, label=f"seed {seed}")
        ax_acc.plot(alphas, val_acc, "o-", ms=3, label=f"seed {seed}")
    for ax in (ax_loss, ax_acc):
        ax.axvline(0, color="grey", ls=":")
        ax.axvline(1, color="grey", ls=":")
        ax.set_xlabel(f"alpha  (0 = {label_a}, 1 = {label_b})")
        ax.legend(fontsize=8)
    ax_loss.set_ylabel("training loss")
    ax_acc.set_ylabel("validation accuracy")
    return fig


def race_curves(points):
    """Steps to target against batch size, one line per optimizer (RacePoint list), and
    under it a strip that says, for each optimizer and batch where no rate of the grid
    reached the target, whether every rate diverged or some ran to the cap without
    reaching it (a row each: no steps were counted, so no height on the steps axis)."""
    fig, (ax, strip) = plt.subplots(2, 1, figsize=(6.5, 5), sharex=True,
                                    gridspec_kw={"height_ratios": (4, 1)})
    names = list(dict.fromkeys(p.contender for p in points))
    rows = ("not reached", "diverged")
    for k, name in enumerate(names):
        mine = [p for p in points if p.contender == name]
        done = [p for p in mine if p.outcome == "reached"]
        line, = ax.loglog([p.batch_size for p in done], [p.steps for p in done], "o-",
                          label=name)
        missed = [p for p in mine if p.outcome != "reached"]
        shift = 1.08 ** (k - (len(names) - 1) / 2)          # side by side at one batch
        strip.plot([p.batch_size * shift for p in missed],
                   [rows.index(p.outcome) for p in missed], "x", ms=9, mew=2,
                   color=line.get_color())
    ax.set_ylabel("steps to target (best rate of the grid)")
    readable_log_axis(ax.xaxis)
    readable_log_axis(ax.yaxis)
    ax.legend(fontsize=8)
    strip.set_yticks(range(len(rows)), rows)
    strip.set_ylim(-0.6, len(rows) - 0.4)
    strip.set_xlabel("batch size B")
    strip.set_title("no rate of the grid reached the target:", fontsize=9, loc="left")
    fig.tight_layout()
    return fig


def plan_curves(results, ax=None):
    """Validation accuracy against step for each plan (PlanResult list), log step axis."""
    ax = ax or plt.subplots(figsize=(6.5, 4))[1]
    for r in results:
        steps, accs = zip(*r.run.evals)
        ax.semilogx(steps, accs, ".-", label=f"{r.label} ({r.steps} steps)")
    ax.set_xlabel("step")
    readable_log_axis(ax.xaxis)
    ax.set_ylabel("validation accuracy")
    ax.legend(fontsize=8)
    return ax
