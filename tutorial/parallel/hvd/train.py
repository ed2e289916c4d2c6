"""Train the digits job with Horovod on local ranks; the results read like ``dist_sync``'s.

    runs = train_with_horovod(DigitsJob(steps=20), num_ranks=2)
    reference = train_single_process(DigitsJob(steps=20), num_workers=2)   # ps.train
    max_relative_difference(runs[0].params, reference["params"])           # ~1e-7

Each rank returns a :class:`~tutorial.parallel.ps.train.WorkerRun` (index = rank), so
one table can hold the parameter server's workers and Horovod's ranks.
"""

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


def train_with_horovod(job, num_ranks=2, timeout=120.0, port=None, run_dir=None,
                       on_poll=None):
    """Run ``job`` on ``num_ranks`` Horovod ranks; one WorkerRun per rank, by rank."""
    if not hasattr(job, "to_json"):
        raise TypeError(f"job must be a DigitsJob, e.g. DigitsJob(steps=20), got {job!r}")
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

        done = run_horovod(argv, num_ranks=num_ranks, timeout=timeout, port=port,
                           run_dir=where, on_poll=polled)
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
