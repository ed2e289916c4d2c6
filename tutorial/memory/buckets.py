"""Gradient buckets and a step's timeline, as data.

**Buckets.** Backward produces the gradients last layer first. Sending each parameter's
gradient on its own pays the per-message latency once per parameter; waiting for all of
them hides nothing. PyTorch's DistributedDataParallel (and Horovod's tensor fusion) put
consecutive gradients, in the order backward produces them, into a bucket until it
holds at least ``bucket_bytes``, then send the bucket as one message while the backward
goes on. A parameter larger than a bucket gets one of its own; ``bucket_bytes=0`` gives
one bucket per parameter and ``float("inf")`` a single bucket (no overlap is possible).

**Timeline.** A step is a list of :class:`Event`: a lane ("compute" or
"communication"), a name, and start and end in seconds from the step's start. The
summaries below read only that list; :mod:`tutorial.viz.overlap_timeline` draws it.

>>> params = [("w3", 40), ("b3", 4), ("w2", 400), ("b2", 40), ("w1", 256), ("b1", 16)]
>>> buckets(params, bucket_bytes=64)
(('w3', 'b3', 'w2'), ('b2', 'w1'), ('b1',))
>>> buckets(params, bucket_bytes=0)[:2], len(buckets(params, float("inf")))
((('w3',), ('b3',)), 1)
>>> events = [Event("compute", "backward 2", 0.0, 1.0), Event("compute", "backward 1", 1.0, 2.0),
...           Event("communication", "bucket 0", 1.0, 2.5)]
>>> summary(events)
Summary(compute_s=2.0, communication_s=1.5, step_s=2.5, hidden_s=1.0, exposed_s=0.5)
"""

import dataclasses
import math

from tutorial.validate import check_range

LANES = ("compute", "communication")


def buckets(sizes, bucket_bytes):
    """Group ``sizes`` = [(name, bytes), ...] (in backward order) into buckets of names."""
    whole = isinstance(bucket_bytes, float) and bucket_bytes == math.inf   # one bucket
    bucket_bytes = bucket_bytes if whole else check_range("bucket_bytes", bucket_bytes, 0)
    groups, current, held = [], [], 0
    for name, nbytes in sizes:
        current.append(name)
        held += nbytes
        if held >= bucket_bytes:
            groups.append(tuple(current))
            current, held = [], 0
    if current:
        groups.append(tuple(current))
    return tuple(groups)


@dataclasses.dataclass(frozen=True)
class Event:
    lane: str          # "compute" (forward, backward per layer, update) or "communication"
    name: str          # e.g. "backward layer 3", "bucket 0"
    start: float       # seconds from the start of the step
    end: float

    def __post_init__(self):
        if self.lane not in LANES:
            raise ValueError(f"lane must be one of {LANES}, got {self.lane!r}")
        if not self.end >= self.start:
            raise ValueError(f"event {self.name!r} ends ({self.end}) before it starts "
                             f"({self.start})")


@dataclasses.dataclass(frozen=True)
class Summary:
    compute_s: float         # time the compute lane was busy
    communication_s: float   # time the communication lane was busy
    step_s: float            # end of the last event
    hidden_s: float          # communication time during which compute was busy too
    exposed_s: float         # communication time with compute idle: what overlap could not hide


def _busy(events):
    """Total length of the union of the events' intervals, and the intervals merged."""
    merged = []
    for e in sorted(events, key=lambda e: e.start):
        if merged and e.start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e.end)
        else:
            merged.append([e.start, e.end])
    return sum(b - a for a, b in merged), merged


def summary(events):
    """How long each lane was busy and how much communication hid behind compute."""
    compute, c_spans = _busy([e for e in events if e.lane == "compute"])
    comm, m_spans = _busy([e for e in events if e.lane == "communication"])
    hidden = sum(max(0.0, min(b, d) - max(a, c)) for a, b in m_spans for c, d in c_spans)
    return Summary(compute, comm, max((e.end for e in events), default=0.0), hidden,
                   comm - hidden)
