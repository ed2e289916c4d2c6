"""Gradient aggregation from scratch: parameter server, reduction tree, butterfly, ring.

One idea per file:

- ``schedule``   the data types: a Schedule is Steps of Transfers (source, destination,
                 chunk, bytes, add or copy)
- ``ps``, ``tree``, ``butterfly``, ``ring``  one pure function each: (nodes, length) -> Schedule
- ``execute``    runs a schedule on real NDArrays, one per device context, with its
                 buffers allocated once (``BoundSchedule``)
- ``replay``     replays a schedule without devices: who has contributed to what
- ``dispatch``   ``allreduce(arrays, algorithm)``, ``bind(out, algorithm)`` and the cached
                 ``schedule(algorithm, ...)``
- ``measure``    timings against MXNet's kvstore, reported as algbw and busbw
"""

from .dispatch import ALGORITHMS, AllreduceResult, allreduce, bind, schedule
from .schedule import Schedule, Step, Transfer, bytes_received, bytes_sent, chunk_bounds
from .replay import contributions, problems, values
