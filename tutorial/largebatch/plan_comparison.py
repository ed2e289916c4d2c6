"""Plans against their baselines (same epochs): steps, final accuracy, sharpness.

Two comparisons of notebook ``11_large_batch_cnn``, each a dict ``label -> plan``
(:mod:`tutorial.largebatch.phases`) trained from the same initial weights on the same
batch order by :func:`tutorial.largebatch.plan_runs.train_plan`:

- Keskar et al.'s small-batch **warm start** against the large batch from the start;
- Smith et al.'s **growing batch** against the step **decay** of the learning rate.

Each trained network is then measured: training loss and Keskar's sharpness
phi(x, eps) (:func:`tutorial.largebatch.sharpness.sharpness`) on a fixed subset of the
training set, with BatchNorm in prediction mode (:class:`~tutorial.largebatch.sharpness.NetLoss`).
"""

import dataclasses

import numpy as np

from tutorial.largebatch.phases import total_steps
from tutorial.largebatch.plan_runs import PlanRun, train_plan
from tutorial.largebatch.sharpness import NetLoss, sharpness
from tutorial.progress import Progress
from tutorial.validate import check_count


@dataclasses.dataclass(frozen=True)
class PlanResult:
    label: str
    steps: int               # updates made (the plan's total unless it diverged)
    final_val_acc: float
    train_loss: float        # on the sharpness subset, prediction mode
    sharpness: float         # Keskar's phi(x, eps) there, in percent
    run: PlanRun


def compare_plans(net_factory, data, plans, optimizer="momentum", optimizer_kw=None,
                  subset=512, eps=1e-3, ascent_steps=10, evals_per_epoch=2, seed=0):
    """One :class:`PlanResult` per entry of ``plans`` (``{label: plan}``), in its order."""
    if not plans:
        raise ValueError("plans must name at least one plan, e.g. {'baseline': constant(4, 512, 0.1)}")
    check_count("subset", subset, what="training examples to measure sharpness on")
    idx = np.random.default_rng(seed).permutation(data.n_train)[:subset]
    results = []
    progress = Progress("plans", len(plans))
    for label, plan in plans.items():
        run, net = train_plan(net_factory, data, plan, optimizer=optimizer,
                              optimizer_kw=optimizer_kw, evals_per_epoch=evals_per_epoch,
                              seed=seed, return_net=True)
        loss = NetLoss(net, data.X_train[idx], data.y_train[idx])
        f0, _ = loss(loss.original)
        phi = sharpness(loss.original, loss, eps=eps, steps=ascent_steps, seed=seed)
        loss.restore()
        results.append(PlanResult(label, run.steps_run, run.final_val_acc, f0, phi, run))
        progress.advance(label)
    return results


def planned_steps(plans, n_train):
    """``{label: total_steps}``: what each plan makes, computed without training."""
    return {label: total_steps(plan, n_train) for label, plan in plans.items()}
