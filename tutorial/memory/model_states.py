"""The ZeRO paper's count of model states per device (Rajbhandari et al. 2020, Figure 1).

Mixed-precision training with Adam keeps, per parameter, a float16 weight (2 bytes) and a
float16 gradient (2 bytes) for the forward and backward, and K = 12 bytes of optimizer
state: a float32 master copy of the weight, Adam's float32 momentum and variance (4 + 4 +
4). The paper's Figure 1 counts these *model states* (no activations, no workspace) for
Ψ parameters on N devices::

    baseline (stage 0)    (2 + 2 + K) Ψ
    P_os     (stage 1)    (2 + 2) Ψ + K Ψ / N
    P_os+g   (stage 2)    2 Ψ + (2 + K) Ψ / N
    P_os+g+p (stage 3)    (2 + 2 + K) Ψ / N

:func:`per_device` takes each device's share from the course's own sharding (the ring's
chunks, :func:`~tutorial.memory.sharding.shards`), so it is exact when N does not divide Ψ.

Ψ = 7.5 B parameters on N = 64 devices (the paper's example): 120, 31.4, 16.6 and 1.9 GB.

>>> [round(per_device(7.5e9, 64, s) / 1e9, 1) for s in range(4)]
[120.0, 31.4, 16.6, 1.9]
>>> per_device(10, 4, 3, weight_bytes=4, grad_bytes=4, state_bytes=8)   # float32, shard of 3
48
"""

from tutorial.memory.sharding import shards
from tutorial.validate import check_count

MIXED = {"weight_bytes": 2, "grad_bytes": 2, "state_bytes": 12}


def per_device(parameters, devices, stage, weight_bytes=2, grad_bytes=2, state_bytes=12,
               device=0):
    """Bytes of model states ``device`` holds under ZeRO ``stage`` for a model of
    ``parameters`` numbers (one flat array) on ``devices`` devices."""
    if isinstance(parameters, float) and parameters.is_integer():
        parameters = int(parameters)
    whole = check_count("parameters", parameters)
    n = check_count("devices", devices)
    if isinstance(stage, bool) or stage not in (0, 1, 2, 3):
        raise ValueError(f"stage must be a whole number 0, 1, 2 or 3, got {stage!r}")
    if n > whole:
        raise ValueError(f"{n} devices for {whole} parameters: each device needs at least "
                         f"one to own; use at most {whole} devices")
    mine = shards(whole, n)[device].size
    weights = weight_bytes * (mine if stage >= 3 else whole)
    grads = grad_bytes * (mine if stage >= 2 else whole)
    state = state_bytes * (mine if stage >= 1 else whole)
    return weights + grads + state
