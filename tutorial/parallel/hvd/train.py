"""Train the digits job with Horovod on local ranks; the results read like ``dist_sync``'s.

    runs = train_with_horovod(DigitsJob(steps=20), num_ranks=2)
    reference = train_single_process(DigitsJob(steps=20), num_workers=2)   # ps.train
    max_relative_difference(runs[0].params, reference["params"])           # ~1e-7

Each rank returns a :class:`~tutorial.parallel.ps.train.WorkerRun` (index = rank), so
one table can hold the parameter server's workers and Horovod's ranks.
"""

import functools

import numpy as np

from tutorial.parallel.hvd.launcher import horovod_problem, run_horovod
from tutorial.parallel.ps.diagnosis import ClusterError
from tutorial.parallel.ps.rundir import run_directory
from tutorial.parallel.ps.train import WorkerRun
from tutorial.progress import Progress
from tutorial.validate import check_count


class HorovodUnavailable(RuntimeError):
    """``import horovod.mxnet`` fails in this environment; the message says how to fix it."""


def require_horovod():
    """Raise :class:`HorovodUnavailable` with the fix when Horovod cannot be imported."""
    problem = horovod_problem()
    if problem is not None:
        raise HorovodUnavailable(problem)


def train_with_horovod(job, num_ranks=None, timeout=120.0, port=None, run_dir=None,
                       on_poll=None, hosts=None, **on_hosts):
    """Run ``job`` on ``num_ranks`` Horovod ranks; one WorkerRun per rank, by rank.

    On this machine (``hosts=None``): 2 ranks unless told, on 127.0.0.1.
    ``hosts="10.0.0.1:2,10.0.0.2:2", interface="ens5"``: over those machines, one rank per
    slot unless told; ``interface``, ``template``, ``rendezvous_address``, ``python`` and
    ``remote_dir`` go to :func:`tutorial.parallel.hosts.horovod.run_horovod_on_hosts`.
    """
    if not hasattr(job, "to_json"):
        raise TypeError(f"job must be a DigitsJob, e.g. DigitsJob(steps=20), got {job!r}")
    if hosts is None:
        if on_hosts:
            raise TypeError(f"{', '.join(sorted(on_hosts))} only apply with hosts=..., a host "
                            f"list such as hosts='10.0.0.1:2,10.0.0.2:2'")
        num_ranks = 2 if num_ranks is None else num_ranks
        launch = functools.partial(run_horovod, port=port)
    else:
        from tutorial.parallel.hosts.hostlist import parse_hosts, total_slots
        from tutorial.parallel.hosts.horovod import run_horovod_on_hosts
        num_ranks = total_slots(parse_hosts(hosts)) if num_ranks is None else num_ranks
        launch = functools.partial(run_horovod_on_hosts, hosts=hosts, **on_hosts)
    check_count("num_ranks", num_ranks, what="the processes of the ring")
    require_horovod()
    argv = ["-m", "tutorial.parallel.hvd.worker", job.to_json()]
    with run_directory(run_dir) as where, \
            Progress(f"Horovod, {num_ranks} ranks x {job.steps} steps",
                     total=num_ranks * job.steps) as progress:
        def polled(steps):
            progress.update(sum(steps), detail=f"timeout {timeout} s")
            if on_poll is not None:
                on_poll(steps)

        done = launch(argv, num_ranks=num_ranks, timeout=timeout, run_dir=where,
                      on_poll=polled)
        progress.update(progress.total)
        return [_read_run(r, where) for r in done.ranks]


def _read_run(r, where):
    if r.result is None:
        tail = "\n".join(r.log.strip().splitlines()[-5:])
        raise ClusterError(f"rank {r.rank} exited normally but wrote no result to {where}; "
                           f"its logs are kept there. The end of its log:\n{tail}")
    with np.load(where / f"rank{r.rank}.npz") as npz:
        params = [npz[f"arr_{i}"] for i in range(len(npz.files))]
    out = r.result
    return WorkerRun(r.rank, out["rank"], out["losses"], out["accuracy"], params, r.log,
                     out["seconds"], out["step_seconds"])
