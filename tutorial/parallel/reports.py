"""What one data-parallel training step reports, and the stop on a NaN loss (see also finite.py).

Times are wall-clock seconds for each phase of the step. MXNet runs operations
asynchronously, so a trainer waits for the devices at the end of each phase when it
times them (``timed=True``); without those waits the phases overlap and only
``total_s`` is meaningful.

>>> r = StepReport(step=1, samples=64, loss=2.0, accuracy=0.5, compute_s=0.03,
...                aggregate_s=0.01, update_s=0.0, total_s=0.04)
>>> round(r.samples_per_s), round(r.aggregate_fraction, 2)
(1600, 0.25)
>>> check_finite(float('nan'), step=3, learning_rate=5.0)
Traceback (most recent call last):
...
tutorial.parallel.reports.TrainingDiverged: the loss became nan at step 3, ... Lower the learning rate (it is 5; try 2.5 or less) and run again.
"""

import dataclasses
import math


class TrainingDiverged(FloatingPointError):
    """The loss, a gradient or a weight is NaN or infinite: the step was not applied."""


@dataclasses.dataclass(frozen=True)
class StepReport:
    step: int            # 1 for the first step
    samples: int         # samples in this step, over all devices
    loss: float          # mean loss over those samples
    accuracy: float      # fraction of them classified right (before the update)
    compute_s: float     # split + forward + backward on every device
    aggregate_s: float   # summing gradients over devices
    update_s: float      # optimizer update (+ broadcast of the new weights)
    total_s: float       # the whole step

    @property
    def samples_per_s(self):
        return self.samples / self.total_s if self.total_s > 0 else float("inf")

    @property
    def aggregate_fraction(self):
        """Share of the step spent aggregating gradients."""
        return self.aggregate_s / self.total_s if self.total_s > 0 else 0.0


def check_finite(loss, step, learning_rate):
    """Raise :class:`TrainingDiverged` with the fix if ``loss`` is NaN or infinite."""
    if not math.isfinite(loss):
        raise TrainingDiverged(
            f"the loss became {loss} at step {step}, so training stopped before the update. "
            f"Lower the learning rate (it is {learning_rate:g}; try {learning_rate / 2:g} or "
            f"less) and run again.")
    return loss
