"""Train the digits job on a local parameter-server cluster and compare it with one process.

    results = train_on_cluster(DigitsJob(steps=20), kvstore="dist_sync", num_workers=2)
    reference = train_single_process(DigitsJob(steps=20), num_workers=2)
    max_relative_difference(results[0].params, reference["params"])   # ~1e-7

The kvstore kinds MXNet's ps-lite offers:

- ``dist_sync``: the servers wait for every worker's gradient of a step, sum them, update
  once; every worker then pulls the same weights (one big synchronous SGD).
- ``dist_async``: a server updates its weights as soon as ANY worker's gradient arrives;
  a worker pulls whatever the weights are then, so it computes its next gradient on
  weights that other workers may already have moved (stale gradients).
- ``dist_device_sync``: ``dist_sync`` whose workers first sum the gradients of their own
  devices (GPUs) on a device: the hierarchical parameter server of the deck.

>>> train_on_cluster(None, kvstore="dist_allreduce")
Traceback (most recent call last):
...
ValueError: kvstore must be one of 'dist_sync', 'dist_async', 'dist_device_sync', got 'dist_allreduce'
"""

import dataclasses
import functools
from typing import List

import numpy as np

from tutorial.parallel.ps.cluster import ClusterError, check_sizes, run_cluster
from tutorial.parallel.ps.digits_job import train
from tutorial.parallel.ps.rundir import run_directory
from tutorial.progress import Progress

KVSTORES = ("dist_sync", "dist_async", "dist_device_sync")
ON_HOSTS = ("template", "interface", "python", "remote_dir")   # run_cluster_on_hosts's options


@dataclasses.dataclass(frozen=True)
class WorkerRun:
    index: int                 # launch index
    rank: int                  # the rank ps-lite gave it (which rows of each batch it took)
    losses: List[float]        # loss on its own rows, one per step
    accuracy: float            # of its final weights on all 1,797 digits
    params: List[np.ndarray]   # its final weights, in net.collect_params() order
    log: str
    seconds: float
    step_seconds: List[float] = ()   # wall time of each step, as the worker measured it

    @classmethod
    def read(cls, where, stem, index, result, log, who):
        """The run a worker wrote into ``where`` as ``{stem}.json`` (``result``) and ``.npz``.

        ``who`` names it in the error ("worker 1", "rank 0") when it wrote nothing.
        """
        if result is None:
            tail = "\n".join(log.strip().splitlines()[-5:])
            raise ClusterError(f"{who} exited normally but wrote no result to {where}; its "
                               f"logs are kept there. The end of its log:\n{tail}")
        with np.load(where / f"{stem}.npz") as npz:
            params = [npz[f"arr_{i}"] for i in range(len(npz.files))]
        return cls(index, result["rank"], result["losses"], result["accuracy"], params, log,
                   result["seconds"], result.get("step_seconds", []))


def launch_and_read(launch, argv, what, total, timeout, run_dir, on_poll, read):
    """``launch(argv, ...)`` in a run folder with a live step count; ``read(done, where)``.

    ``launch`` is a cluster or Horovod launcher with its sizes already given; ``on_poll``
    also gets the workers' last steps at every poll (None: only the count is shown).
    """
    with run_directory(run_dir) as where, Progress(what, total=total) as progress:
        def polled(steps):
            progress.update(sum(steps), detail=f"timeout {timeout} s")
            if on_poll is not None:
                on_poll(steps)

        done = launch(argv, timeout=timeout, run_dir=where, on_poll=polled)
        progress.update(progress.total)
        return read(done, where)


def train_on_cluster(job, kvstore="dist_sync", num_workers=None, num_servers=None,
                     timeout=120.0, port=None, run_dir=None, on_poll=None, hosts=None,
                     **on_hosts):
    """Run ``job`` on ``num_workers`` worker processes; one :class:`WorkerRun` per worker.

    On this machine (``hosts=None``): 2 workers and 1 server unless told, on 127.0.0.1.
    ``hosts="10.0.0.1:2,10.0.0.2:2"``: over those machines, one worker per slot and one
    server per host unless told; ``port`` is then the scheduler's port on the first host
    (see ``run_cluster_on_hosts``), and ``template``, ``interface``, ``python``, ``remote_dir`` go to
    :func:`tutorial.parallel.hosts.pslite.run_cluster_on_hosts`.

    ``run_dir=None``: logs and results go to a temporary folder, removed once the results
    are read, kept when the run fails (the error names it). In a notebook a live line counts
    the steps the workers have done (``tutorial.progress``). ``on_poll(steps)``, if given,
    also gets the last step of each worker at every poll (a widget draws them); an
    exception it raises stops the cluster (every process) and propagates.
    """
    if kvstore not in KVSTORES:
        raise ValueError(f"kvstore must be one of {', '.join(map(repr, KVSTORES))}, "
                         f"got {kvstore!r}")
    if not hasattr(job, "to_json"):
        raise TypeError(f"job must be a DigitsJob, e.g. DigitsJob(steps=20), got {job!r}")
    unknown = sorted(set(on_hosts) - set(ON_HOSTS))
    if unknown:
        raise TypeError(f"train_on_cluster() got unexpected argument(s) {unknown}; with hosts=... "
                        f"it also takes {', '.join(ON_HOSTS)}")
    if on_hosts and hosts is None:
        raise TypeError(f"{', '.join(sorted(on_hosts))} only apply with hosts=..., a host list "
                        f"such as hosts='10.0.0.1:2,10.0.0.2:2'")
    if hosts is None:
        num_workers = 2 if num_workers is None else num_workers
        num_servers = 1 if num_servers is None else num_servers
        check_sizes(num_workers, num_servers)
        launch = functools.partial(run_cluster, num_servers=num_servers, port=port)
    else:
        from tutorial.parallel.hosts.pslite import run_cluster_on_hosts
        from tutorial.parallel.hosts.placement import parse_hosts, place
        rows = place(parse_hosts(hosts), num_workers, num_servers)
        num_workers = sum(row.role == "worker" for row in rows)
        launch = functools.partial(run_cluster_on_hosts, hosts=hosts, num_servers=num_servers,
                                   port=port, **on_hosts)
    argv = ["-m", "tutorial.parallel.ps.worker", kvstore, job.to_json()]

    def read(done, where):
        runs = (WorkerRun.read(where, f"worker{w.index}", w.index, w.result, w.log,
                               f"worker {w.index}") for w in done.workers)
        return sorted(runs, key=lambda run: run.rank)

    return launch_and_read(functools.partial(launch, num_workers=num_workers), argv,
                           f"{kvstore} cluster, {num_workers} workers x {job.steps} steps",
                           num_workers * job.steps, timeout, run_dir, on_poll, read)


def train_single_process(job, num_workers):
    """The same job in this process, one worker taking the whole global batch of W*b."""
    whole = dataclasses.replace(job, batch_per_worker=num_workers * job.batch_per_worker,
                                crash_worker=None)
    return train(whole, kvstore=None, rank=0, num_workers=1, log=lambda line: None)


def max_relative_difference(params, reference):
    """max over tensors of ||a - b|| / ||b||: 0 for identical weights."""
    return max(float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))
               for a, b in zip(params, reference))
