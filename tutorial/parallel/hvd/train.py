"""Train the digits job with Horovod on local ranks; the results read like ``dist_sync``'s.

    runs = train_with_horovod(DigitsJob(steps=20), num_ranks=2)
    reference = train_single_process(DigitsJob(steps=20), num_workers=2)   # ps.train
    max_relative_difference(runs[0].params, reference["params"])           # ~1e-7

Each rank returns a :class:`~tutorial.parallel.ps.train.WorkerRun` (index = rank), so
one table can hold the parameter server's workers and Horovod's ranks.
"""

import functools

from tutorial.parallel.hvd.launcher import horovod_problem, run_horovod
from tutorial.parallel.ps.train import WorkerRun, launch_and_read
from tutorial.validate import check_count


class HorovodUnavailable(RuntimeError):
    """``import horovod.mxnet`` fails in this environment; the message says how to fix it."""


def require_horovod():
    """Raise :class:`HorovodUnavailable` with the fix when Horovod cannot be imported."""
    problem = horovod_problem()
    if problem is not None:
        raise HorovodUnavailable(problem)


ON_HOSTS = ("interface", "template", "rendezvous_address", "python", "remote_dir")


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
    unknown = sorted(set(on_hosts) - set(ON_HOSTS))
    if unknown:
        raise TypeError(f"train_with_horovod() got unexpected argument(s) {unknown}; with "
                        f"hosts=... it also takes {', '.join(ON_HOSTS)}")
    if hosts is not None and on_hosts.get("interface") is None:
        raise TypeError("train_with_horovod(hosts=...) needs interface=..., the network "
                        "interface Gloo's ring runs over, named alike on every host "
                        "(`ip addr` lists them), e.g. interface='ens5'")
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

    def read(done, where):
        return [WorkerRun.read(where, f"rank{r.rank}", r.rank, r.result, r.log, f"rank {r.rank}")
                for r in done.ranks]

    return launch_and_read(functools.partial(launch, num_ranks=num_ranks), argv,
                           f"Horovod, {num_ranks} ranks x {job.steps} steps",
                           num_ranks * job.steps, timeout, run_dir, on_poll, read)
