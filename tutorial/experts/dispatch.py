"""Expert parallelism's plan as data: which device holds each expert, which rows go where.

Expert parallelism (GShard, Lepikhin et al. 2020; Switch, Fedus et al. 2021) gives each of
K devices some of the E experts (E >= K) and its own slice of the tokens. A token must
travel to the device of each expert it was routed to: device d sends ``counts[d][p]``
rows to device p, one all-to-all (:mod:`~tutorial.experts.all_to_all`); the experts'
outputs come back by the reverse all-to-all (``counts`` transposed) and each device
combines its own tokens' outputs.

The routing is that of the whole batch, so the same tokens are dropped as on one device:
each device computes its tokens' choices, and the slots follow from the per-expert counts
of the devices before it (a small all-gather of counts in a real system; here the
choices are joined on the host).

Device d's rows are sent grouped by destination device, then by expert, then in slot
order. Two devices with three tokens each, experts 0 and 1 on device 0, expert 2 on
device 1:

>>> from types import SimpleNamespace
>>> routing = SimpleNamespace(experts=((0,), (2,), (1,), (2,), (2,), (0,)),
...                           slots=((0,), (0,), (0,), (1,), (2,), (1,)),
...                           tokens=((0, 5), (2,), (1, 3, 4)))
>>> plan = dispatch_plan(routing, expert_devices=(0, 0, 1), token_counts=(3, 3))
>>> plan.send, plan.counts               # local rows each device sends, rows to each device
(((0, 2, 1), (2, 0, 1)), ((2, 1), (1, 2)))
>>> plan.receive                         # per device: (expert, positions in what it received)
(((0, (0, 2)), (1, (1,))), ((2, (0, 1, 2)),))
>>> plan.combine                         # per local token: where its output comes back
(((0,), (2,), (1,)), ((1,), (2,), (0,)))
"""

import dataclasses
from typing import Optional, Tuple

from tutorial.parallel.collectives.schedule import chunk_bounds
from tutorial.validate import check_count


@dataclasses.dataclass(frozen=True)
class DispatchPlan:
    """Who sends which rows to whom, and where each expert's rows sit on arrival."""
    expert_devices: Tuple[int, ...]             # the device of each expert
    token_ranges: Tuple[Tuple[int, int], ...]   # the batch's tokens each device holds
    send: Tuple[Tuple[int, ...], ...]           # per device: local rows, in sending order
    counts: Tuple[Tuple[int, ...], ...]         # counts[d][p]: rows device d sends to p
    receive: Tuple[Tuple[Tuple[int, Tuple[int, ...]], ...], ...]   # per device: (expert,
    #                                             its rows' positions in the received rows)
    combine: Tuple[Tuple[Tuple[Optional[int], ...], ...], ...]     # per device, local token
    #                                             and choice: its row coming back, None: dropped


def place_experts(num_experts, num_devices):
    """Experts in contiguous runs, whose sizes differ by at most one: the device of each.

    >>> place_experts(5, 2)
    (0, 0, 0, 1, 1)
    """
    num_experts = check_count("num_experts", num_experts)
    num_devices = check_count("num_devices", num_devices)
    if num_devices > num_experts:
        raise ValueError(f"num_devices={num_devices} is more than the {num_experts} "
                         f"experts: every device needs an expert, so use at most "
                         f"{num_experts} devices (or more experts)")
    return tuple(d for d, (a, b) in enumerate(chunk_bounds(num_experts, num_devices))
                 for _ in range(a, b))


def check_expert_devices(expert_devices, num_experts, num_devices):
    """``expert_devices`` as a tuple once it gives each of the experts a device, every
    device at least one expert."""
    expert_devices = tuple(expert_devices)
    if len(expert_devices) != num_experts:
        raise ValueError(f"expert_devices must give a device to each of the {num_experts} "
                         f"experts, got {len(expert_devices)}: e.g. "
                         f"place_experts({num_experts}, {num_devices})")
    for e, d in enumerate(expert_devices):
        check_count(f"expert_devices[{e}]", d, low=0)
        if d >= num_devices:
            raise ValueError(f"expert_devices[{e}]={d} but there are {num_devices} devices "
                             f"(0 .. {num_devices - 1})")
    idle = sorted(set(range(num_devices)) - set(expert_devices))
    if idle:
        raise ValueError(f"devices {idle} hold no expert: give every device at least one "
                         f"(place_experts({num_experts}, {num_devices}))")
    return expert_devices


def token_ranges(token_counts):
    """(start, stop) of each device's tokens in the batch."""
    counts = [check_count(f"token_counts[{d}]", n) for d, n in enumerate(token_counts)]
    stops = [sum(counts[:d + 1]) for d in range(len(counts))]
    return tuple(zip([0] + stops[:-1], stops))


def dispatch_plan(routing, expert_devices, token_counts):
    """The :class:`DispatchPlan` of ``routing`` (the whole batch's) with device d holding
    the next ``token_counts[d]`` tokens and expert e on device ``expert_devices[e]``."""
    ranges = token_ranges(token_counts)
    k = len(ranges)
    expert_devices = check_expert_devices(expert_devices, len(routing.tokens), k)
    if ranges[-1][1] != len(routing.experts):
        raise ValueError(f"token_counts add up to {ranges[-1][1]} but the routing is of "
                         f"{len(routing.experts)} tokens")
    on_device = [[e for e, d in enumerate(expert_devices) if d == p] for p in range(k)]
    send, counts, combine = [], [], []
    per_source = [[None] * len(expert_devices) for _ in range(k)]   # [d][e]: rows d -> e
    for d, (start, stop) in enumerate(ranges):
        rows, row_counts, where = [], [], {}
        for p in range(k):
            before = len(rows)
            for e in on_device[p]:
                mine = [t for t in routing.tokens[e] if start <= t < stop]  # in slot order
                per_source[d][e] = len(mine)
                for t in mine:
                    where[t, e] = len(rows)
                    rows.append(t - start)
            row_counts.append(len(rows) - before)
        send.append(tuple(rows))
        counts.append(tuple(row_counts))
        combine.append(tuple(tuple(where.get((t, e)) for e in routing.experts[t])
                             for t in range(start, stop)))
    receive = []
    for p in range(k):
        groups = {e: [] for e in on_device[p]}
        offset = 0                                # arrivals: by source, then by expert
        for d in range(k):
            for e in on_device[p]:
                groups[e].extend(range(offset, offset + per_source[d][e]))
                offset += per_source[d][e]
        receive.append(tuple((e, tuple(rows)) for e, rows in groups.items() if rows))
    return DispatchPlan(expert_devices, ranges, tuple(send), tuple(counts), tuple(receive),
                        tuple(combine))
