"""The critical batch size: where doubling the batch stops halving the steps.

Shallue et al. (2018) measured the steps S needed to reach a target against batch size B
and found the same shape everywhere: a region of *perfect scaling* (S proportional to 1/B),
then *diminishing returns*, then a plateau S_min that no batch size beats. McCandlish et
al. (2018) derived the shape from a noisy quadratic model:

    S(B) = S_min * (1 + B_crit / B)        examples E(B) = S*B = E_min * (1 + B / B_crit)

with E_min = S_min * B_crit. Below B_crit, doubling B nearly halves S; above it, doubling
B nearly doubles the examples processed, for few fewer steps. ``fit_critical_batch`` fits
the two numbers by least squares on *relative* errors (S spans decades): S = a + b / B is
linear in (a, b), so S_min = a and B_crit = b / a.

>>> fit = fit_critical_batch([16, 64, 256, 1024], [110.0, 35.0, 16.25, 11.5625])
>>> round(fit.s_min, 3), round(fit.b_crit, 3), round(fit.e_min, 1)
(10.0, 160.0, 1600.0)
>>> round(float(fit.steps(160)), 3)            # at B = B_crit, twice the minimum
20.0
"""

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class CriticalBatchFit:
    s_min: float      # steps needed with an infinitely large batch
    b_crit: float     # batch size at which S = 2 S_min (and E = 2 E_min)

    @property
    def e_min(self):
        """Examples needed with an infinitely small batch: S_min * B_crit."""
        return self.s_min * self.b_crit

    def steps(self, batch_size):
        """Predicted steps to the target at ``batch_size``."""
        return self.s_min * (1.0 + self.b_crit / np.asarray(batch_size, dtype=float))

    def examples(self, batch_size):
        """Predicted examples processed to the target at ``batch_size``."""
        return self.steps(batch_size) * np.asarray(batch_size, dtype=float)


def fit_critical_batch(batch_sizes, steps):
    """Least-squares fit of S = S_min (1 + B_crit / B), minimising relative residuals."""
    B = np.asarray(batch_sizes, dtype=float)
    S = np.asarray(steps, dtype=float)
    if B.shape != S.shape or B.ndim != 1:
        raise ValueError(f"batch_sizes and steps must be two lists of one length, got "
                         f"{B.shape} and {S.shape}")
    if len(B) < 2 or len(np.unique(B)) < 2:
        raise ValueError("need steps at two or more different batch sizes to fit S_min and B_crit")
    if np.any(~np.isfinite(S)) or np.any(S <= 0) or np.any(B <= 0):
        raise ValueError("batch sizes and steps must be positive numbers; leave out batch "
                         "sizes that never reached the target (None) before fitting")
    design = np.stack([np.ones_like(B), 1.0 / B], axis=1) / S[:, None]
    (a, b), *_ = np.linalg.lstsq(design, np.ones_like(S), rcond=None)
    if a <= 0:
        raise ValueError(f"the fit found no plateau (S_min = {a:.3g} <= 0): the steps still "
                         f"fall like 1/B at the largest batch; add larger batch sizes")
    return CriticalBatchFit(float(a), float(b / a))
