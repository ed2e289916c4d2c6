"""The same digits job on three engines: time per step, and bytes per step and per process.

- ``ps-lite dist_sync``: W worker processes and S server processes (ps.train);
- ``Horovod ring``: W rank processes, Gloo's ring allreduce over 127.0.0.1 (hvd.train);
- ``own ring on devices``: ONE process, the course's ring (``collectives.ring``) between
  W contexts ``mx.cpu(i)`` (``DataParallelTrainer(aggregation='ring')``).

Bytes count the gradients' payload per step (no message headers, no Horovod control
messages). With M = the bytes of all gradients (float32: 4 x the number of weights) and
W workers:

=================  ==================  =====================  =============
engine             sent by one worker  sent by the busiest    sent by all
                                       process                processes
=================  ==================  =====================  =============
ps-lite dist_sync  M (push; pulls M)   W M / S (a server)     2 W M
Horovod ring       2 (W-1)/W M         2 (W-1)/W M            2 (W-1) M
own ring           2 (W-1)/W M         2 (W-1)/W M            2 (W-1) M
=================  ==================  =====================  =============

A worker of the ring sends about twice what a ps worker pushes, but no process sends
more than 2M, however many workers: a server sends W M / S, and it is the bottleneck.

Horovod fuses all gradients into one buffer and allreduces it once; the course's ring
allreduces each parameter alone, and its bytes are read from its schedule
(``bytes_sent``), which checks the formula:

>>> ring_bytes([4810], num_workers=2), formula_bytes("Horovod ring", 4 * 4810, 2)
([19240, 19240], (19240, 19240, 38480))
>>> formula_bytes("ps-lite dist_sync", 19240, num_workers=8, num_servers=1)
(19240, 153920, 307840)
"""

import dataclasses
import statistics
import time
from typing import Tuple

ENGINES = ("ps-lite dist_sync", "Horovod ring", "own ring on devices")


@dataclasses.dataclass(frozen=True)
class Row:
    engine: str
    processes: int              # processes that exchange gradients
    seconds_per_step: float     # median step time after the first step, mean over workers
    bytes_per_worker: int       # gradient bytes one worker sends per step
    bytes_busiest: int          # ... the process that sends most (a ps server)
    bytes_all: int              # ... all processes together
    vs_one_process: float       # max relative difference of the final weights
    accuracy: float             # of the final weights on all 1,797 digits


def formula_bytes(engine, nbytes, num_workers, num_servers=1):
    """(one worker, the busiest process, all processes): bytes sent per step, as above."""
    W, S = num_workers, num_servers
    if engine == "ps-lite dist_sync":
        return nbytes, max(nbytes, W * nbytes // S), 2 * W * nbytes
    if engine in ("Horovod ring", "own ring on devices"):
        per_worker = round(2 * (W - 1) / W * nbytes)
        return per_worker, per_worker, 2 * (W - 1) * nbytes
    raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINES))}, got {engine!r}")


def ring_bytes(sizes, num_workers, itemsize=4):
    """Bytes each node sends in the course's ring, one allreduce per tensor of ``sizes``."""
    from tutorial.parallel.collectives import bytes_sent, schedule
    sent = [0] * num_workers
    for size in sizes:
        sent = [a + b for a, b in zip(sent, bytes_sent(schedule("ring", num_workers, size,
                                                                itemsize)))]
    return sent


def _median_step(runs):
    return statistics.mean(statistics.median(r.step_seconds[1:] or r.step_seconds)
                           for r in runs)


def _own_ring(job, num_workers):
    """The job in this process on W contexts; (final weights, per-step seconds, accuracy)."""
    import mxnet as mx

    from tutorial.data import load_digits
    from tutorial.parallel.ps.digits_job import global_batches
    from tutorial.parallel.trainer import DataParallelTrainer
    from tutorial.parallel.workload import mlp

    net = mlp(hidden=job.hidden, seed=job.seed)
    trainer = DataParallelTrainer(net, [mx.cpu(i) for i in range(num_workers)], "sgd",
                                  aggregation="ring", learning_rate=job.learning_rate)
    seconds = []
    for _, (X, y) in zip(range(job.steps), global_batches(job, num_workers)):
        start = time.perf_counter()
        trainer.step(X, y)
        seconds.append(time.perf_counter() - start)
    X, y = load_digits()
    accuracy = float((net(mx.nd.array(X)).argmax(axis=1).asnumpy() == y).mean())
    return [p.data().asnumpy() for p in net.collect_params().values()], seconds, accuracy


def side_by_side(job, num_workers=2, num_servers=1, timeout=120.0, engines=ENGINES,
                 done=None):
    """One :class:`Row` per engine in ``engines``, each running ``job`` on ``num_workers``.

    ``done``: {engine: its WorkerRuns of this job} already measured, not run again (a
    notebook that has just trained the job with Horovod passes those runs).
    """
    from tutorial.parallel.hvd.train import train_with_horovod
    from tutorial.parallel.ps.train import (max_relative_difference, train_on_cluster,
                                            train_single_process)
    unknown = [e for e in [*engines, *(done or {})] if e not in ENGINES]
    if unknown:
        raise ValueError(f"unknown engines {unknown}: choose from {', '.join(ENGINES)}")
    reference = train_single_process(job, num_workers)["params"]
    sizes = [p.size for p in reference]
    nbytes = 4 * sum(sizes)
    rows = []
    for engine in engines:
        if engine == "own ring on devices":
            params, seconds, accuracy = _own_ring(job, num_workers)
            sent = ring_bytes(sizes, num_workers)
            rows.append(Row(engine, 1, statistics.median(seconds[1:] or seconds), max(sent),
                            max(sent), sum(sent), max_relative_difference(params, reference),
                            accuracy))
            continue
        runs = (done or {}).get(engine)
        if engine == "ps-lite dist_sync":
            runs = runs or train_on_cluster(job, "dist_sync", num_workers, num_servers,
                                            timeout=timeout)
            processes = num_workers + num_servers
        else:
            runs = runs or train_with_horovod(job, num_workers, timeout=timeout)
            processes = num_workers
        traffic = formula_bytes(engine, nbytes, num_workers, num_servers)
        rows.append(Row(engine, processes, _median_step(runs), *traffic,
                        max(max_relative_difference(r.params, reference) for r in runs),
                        runs[0].accuracy))
    return rows


def format_table(rows: Tuple[Row, ...]):
    """The rows as a text table, one line per engine."""
    head = (f"{'engine':<20}{'processes':>10}{'ms/step':>9}{'B/worker':>10}{'B/busiest':>11}"
            f"{'B, all':>9}{'vs 1 process':>14}")
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r.engine:<20}{r.processes:>10}{1e3 * r.seconds_per_step:>9.2f}"
                     f"{r.bytes_per_worker:>10,}{r.bytes_busiest:>11,}{r.bytes_all:>9,}"
                     f"{r.vs_one_process:>14.1e}")
    return "\n".join(lines)
