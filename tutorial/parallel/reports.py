"""What one data-parallel training step reports (the stop on a NaN: ``tutorial.finite``).

Times are wall-clock seconds for each phase of the step. MXNet runs operations
asynchronously, so a trainer waits for the devices at the end of each phase when it
times them (``timed=True``); without those waits the phases overlap and only
``total_s`` is meaningful.

>>> r = StepReport(step=1, samples=64, loss=2.0, accuracy=0.5, compute_s=0.03,
...                aggregate_s=0.01, update_s=0.0, total_s=0.04)
>>> round(r.samples_per_s), round(r.aggregate_fraction, 2)
(1600, 0.25)
"""

import dataclasses


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

