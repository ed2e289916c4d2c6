"""Dynamic loss scaling from scratch: grow the scale after N good steps, halve and skip on inf/NaN.

Gradients of a float16 network are often smaller than float16's smallest number
(about 6e-8) and round to zero. Multiplying the loss by a scale S multiplies every
gradient by S (backward is linear), lifting them into float16's range; the optimizer
then divides by S in float32 before it updates the float32 master weights. Too large
an S overflows (inf or NaN): that step is skipped and S halved. After ``growth_interval``
finite steps in a row, S doubles (up to ``max_scale``). The algorithm, per step:

    finite = all gradients of this step are finite        (after scaling by S)
    if finite:  apply the update;  good += 1
                if good == growth_interval: S = min(S * growth, max_scale); good = 0
    else:       skip the update;   S = max(S * backoff, min_scale); good = 0

This is MXNet's ``mxnet.contrib.amp.loss_scaler.LossScaler`` (2**16 to start, 2000
good steps to grow, 2**24 at most) and PyTorch's ``GradScaler``; the tests drive
MXNet's with the same sequence of overflows and compare. References: P. Micikevicius
et al., "Mixed Precision Training", ICLR 2018.

>>> scaler = DynamicLossScaler(init_scale=8.0, growth_interval=2)
>>> [(r.scale, r.applied) for r in scaler.schedule([True, True, False, True])]
[(8.0, True), (8.0, True), (16.0, False), (8.0, True)]
"""

import dataclasses

import numpy as np

from tutorial.validate import check_count, check_range


def check_flag(name, value):
    """``value`` as a bool if it is one (Python's or NumPy's); else a TypeError: ``'False'``
    and NaN would count as true, and a skipped step as an applied one."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False (were all gradients finite?), got "
                        f"{value!r}")
    return bool(value)


@dataclasses.dataclass(frozen=True)
class ScalerState:
    scale: float           # the loss is multiplied by this before backward
    good_steps: int        # finite steps in a row since the scale last changed


@dataclasses.dataclass(frozen=True)
class ScheduleRow:
    step: int              # 1, 2, ...
    scale: float           # the scale this step's loss was multiplied by
    finite: bool           # were all its gradients finite?
    applied: bool          # was the update applied (False: skipped)?
    next_scale: float      # the scale the next step uses


@dataclasses.dataclass(frozen=True)
class DynamicLossScaler:
    """The scaler's settings; its state is a :class:`ScalerState` passed in and out."""
    init_scale: float = 2.0 ** 16
    growth_factor: float = 2.0
    backoff_factor: float = 0.5
    growth_interval: int = 2000
    min_scale: float = 1.0
    max_scale: float = 2.0 ** 24

    def __post_init__(self):
        check_range("init_scale", self.init_scale, 0.0, low_open=True)
        check_range("growth_factor", self.growth_factor, 1.0, low_open=True)
        check_range("backoff_factor", self.backoff_factor, 0.0, 1.0, low_open=True,
                    high_open=True)
        check_count("growth_interval", self.growth_interval)
        check_range("min_scale", self.min_scale, 0.0, low_open=True)
        check_range("max_scale", self.max_scale, self.min_scale)
        if not self.min_scale <= self.init_scale <= self.max_scale:
            raise ValueError(f"init_scale={self.init_scale!r} is outside [min_scale, max_scale] "
                             f"= [{self.min_scale!r}, {self.max_scale!r}]: the scaler would move "
                             f"it the wrong way; start inside, or widen the bounds")

    def init(self):
        return ScalerState(float(self.init_scale), 0)

    def update(self, state, finite):
        """(next state, applied): what one step with finite (or not) gradients does."""
        if not check_flag("finite", finite):
            return ScalerState(max(state.scale * self.backoff_factor, self.min_scale), 0), False
        good = state.good_steps + 1
        if good == self.growth_interval:
            return ScalerState(min(state.scale * self.growth_factor, self.max_scale), 0), True
        return ScalerState(state.scale, good), True

    def schedule(self, finite_flags):
        """The scaler's steps as data: one :class:`ScheduleRow` per entry of ``finite_flags``."""
        state, rows = self.init(), []
        for step, finite in enumerate(finite_flags, start=1):
            finite = check_flag(f"finite_flags[{step - 1}]", finite)
            new, applied = self.update(state, finite)
            rows.append(ScheduleRow(step, state.scale, finite, applied, new.scale))
            state = new
        return rows
