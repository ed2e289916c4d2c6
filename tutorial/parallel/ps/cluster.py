"""A parameter-server cluster on this machine: a scheduler, S servers and W workers.

MXNet's distributed kvstores (``'dist_sync'``, ``'dist_async'``, ``'dist_device_sync'``)
run on ps-lite, which is built into the mxnet 1.9.1 wheel. Every process learns its
part from environment variables, as MXNet's ``tools/launch.py`` sets them:

    DMLC_ROLE          scheduler | server | worker
    DMLC_PS_ROOT_URI   where the scheduler listens (here always 127.0.0.1)
    DMLC_PS_ROOT_PORT  the scheduler's port
    DMLC_NUM_SERVER    how many servers, DMLC_NUM_WORKER how many workers
    DMLC_NODE_HOST     the address this process itself binds (127.0.0.1)

A scheduler or a server is just ``python -c "import mxnet"``: importing mxnet with that
role runs its loop until the workers say they are done. A worker runs a Python module
that creates the distributed kvstore (``mx.kv.create('dist_sync')`` or a
``gluon.Trainer(..., kvstore='dist_sync')``).

Nothing here ever waits without a deadline. ps-lite has no failure detection by default:
when one worker dies, the others wait in ``pull`` forever for its gradient. So the
launcher polls every process; the first one that exits with an error, or the deadline,
stops the whole process group and raises :class:`ClusterError` saying which process
failed, after which step, its last log line, and what to do.

>>> check_sizes(num_workers=0, num_servers=1)
Traceback (most recent call last):
...
ValueError: num_workers must be a whole number >= 1 (the processes that compute gradients), got 0.
"""

import ctypes
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional, Tuple

from tutorial.parallel.hosts import results
from tutorial.parallel.ps.diagnosis import (ClusterError, failure_message, last_step,
                                            timeout_message)
from tutorial.parallel.ps.ports import HOST, check_port, claimed_port, free_port  # noqa: F401
from tutorial.parallel.ps.rundir import run_directory
from tutorial.validate import check_count, check_range

REPO_ROOT = Path(__file__).resolve().parents[3]
SERVER_ARGV = ("-c", "import mxnet")      # importing mxnet with DMLC_ROLE set runs the loop


@dataclasses.dataclass(frozen=True)
class WorkerResult:
    index: int                 # launch index (ps-lite may give it a different kvstore rank)
    log: str                   # everything the worker printed
    result: Optional[dict]     # what it wrote to ``worker{index}.json`` (None if nothing)


@dataclasses.dataclass(frozen=True)
class ClusterResult:
    workers: Tuple[WorkerResult, ...]
    run_dir: Optional[Path]    # logs and results of every process; None when they were in
                               # a temporary folder, removed after the run succeeded
    seconds: float             # from the first launch to the last worker's exit


@dataclasses.dataclass
class _Node:
    role: str
    index: int
    popen: subprocess.Popen
    log_path: Path
    host: Optional[str] = None     # the machine it runs on; None: this one (127.0.0.1)

    @property
    def name(self):
        name = self.role if self.role == "scheduler" else f"{self.role} {self.index}"
        return name if self.host is None else f"{name} on {self.host}"

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""


def check_sizes(num_workers, num_servers):
    check_count("num_workers", num_workers, what="the processes that compute gradients")
    check_count("num_servers", num_servers, what="the processes that hold the weights")


def _find_prctl():
    try:
        return ctypes.CDLL(None, use_errno=True).prctl   # looked up here, not after fork
    except (OSError, AttributeError):
        return None                                       # not Linux: no parent-death signal


_PRCTL = _find_prctl()
_PR_SET_PDEATHSIG = 1


def _child_setup(group):
    """What each child runs before exec: join process group ``group`` (0: lead a new one,
    as ``Popen(process_group=...)`` of Python 3.11 does) and die with the launcher."""
    def setup():
        os.setpgid(0, group)
        if _PRCTL is not None:
            _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)
    return setup


def dmlc_env(role, port, num_workers, num_servers, root=HOST, node_host=HOST):
    """The ps-lite variables one process of the cluster gets.

    ``root``: the scheduler's address; ``node_host``: the address this process announces
    (both 127.0.0.1 on one machine; ``tutorial.parallel.hosts`` sets them per host).

    >>> dmlc_env("server", 9000, num_workers=2, num_servers=1)["DMLC_PS_ROOT_URI"]
    '127.0.0.1'
    """
    if role not in ("scheduler", "server", "worker"):
        raise ValueError(f"role must be 'scheduler', 'server' or 'worker', got {role!r}")
    return {"DMLC_ROLE": role, "DMLC_PS_ROOT_URI": root, "DMLC_PS_ROOT_PORT": str(port),
            "DMLC_NUM_SERVER": str(num_servers), "DMLC_NUM_WORKER": str(num_workers),
            "DMLC_NODE_HOST": node_host}


def _node_env(role, port, num_workers, num_servers, extra):
    env = dict(os.environ)
    env.update(dmlc_env(role, port, num_workers, num_servers))
    env.update({"OMP_NUM_THREADS": "1", "MXNET_CPU_WORKER_NTHREADS": "1",
                "PYTHONUNBUFFERED": "1"})
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def log_path(run_dir, role, index):
    return run_dir / (f"{role}.log" if role == "scheduler" else f"{role}{index}.log")


def _start(role, index, argv, env, run_dir, group):
    path = log_path(run_dir, role, index)
    with open(path, "wb") as log:
        popen = subprocess.Popen([sys.executable, "-u", *argv], env=env, cwd=run_dir,
                                 stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 preexec_fn=_child_setup(group))
    return _Node(role, index, popen, path)


def _stop(nodes, group, grace=2.0):
    """SIGTERM the whole process group, then SIGKILL whatever is left; reap everyone."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if all(n.popen.poll() is not None for n in nodes):
            break
        try:
            os.killpg(group, sig)
        except (ProcessLookupError, PermissionError):
            pass
        _wait_for_exit(nodes, grace)
    for n in nodes:
        try:
            n.popen.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        if n.popen.stdin is not None:              # a remote node's tether pipe
            n.popen.stdin.close()


def _wait_for_exit(nodes, grace):
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(n.popen.poll() is None for n in nodes):
        time.sleep(0.05)


def read_result(run_dir, stem):
    """What a process wrote to ``{stem}.json`` in ``run_dir`` (None if nothing)."""
    path = Path(run_dir) / f"{stem}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def run_cluster(worker_argv, num_workers=2, num_servers=1, timeout=120.0, port=None,
                run_dir=None, worker_env=None, poll=0.1, server_argv=SERVER_ARGV,
                on_poll=None):
    """Start a scheduler, ``num_servers`` servers and ``num_workers`` workers; wait for them.

    ``worker_argv``: what follows ``python -u`` for each worker, e.g.
    ``["-m", "tutorial.parallel.ps.worker", "job.json"]``. Worker i gets
    ``TUTORIAL_PS_WORKER_INDEX=i`` and ``TUTORIAL_PS_OUT_DIR=run_dir`` and may write
    ``worker{i}.json`` there; lines it prints as ``step N ...`` tell error messages how far
    it got. Returns a :class:`ClusterResult` when every worker exited with code 0; stops
    every process and raises :class:`ClusterError` otherwise. Every process is stopped
    before this returns, also on an exception or KeyboardInterrupt. ``server_argv`` runs
    the scheduler and the servers (tests replace ps-lite by a stand-in to check the
    supervision alone). ``on_poll(steps)``, if given, is called at every poll with the last
    step each worker printed so far (a progress line draws them).

    ``run_dir=None``: the logs go to a temporary folder, removed after a successful run
    and kept after a failed one (the ClusterError names it). ``port=None``: a free port;
    an explicit port must be free and not claimed by another cluster (``ports.py``).
    """
    check_sizes(num_workers, num_servers)
    if not isinstance(worker_argv, (list, tuple)) or not all(isinstance(a, str)
                                                             for a in worker_argv):
        raise ValueError(f"worker_argv must be a list of strings such as ['-m', "
                         f"'tutorial.parallel.ps.worker', ...], got {worker_argv!r}")
    timeout = check_range("timeout", timeout, 0.0, low_open=True)     # seconds
    poll = check_range("poll", poll, 0.0, low_open=True)
    if on_poll is not None and not callable(on_poll):
        raise TypeError(f"on_poll must be a function of the workers' steps, got {on_poll!r}")
    with claimed_port(port) as port, run_directory(run_dir) as where:
        extra = dict(worker_env or {}, TUTORIAL_PS_OUT_DIR=str(where))
        plan = [("scheduler", 0, tuple(server_argv), {})]
        plan += [("server", i, tuple(server_argv), {}) for i in range(num_servers)]
        plan += [("worker", i, tuple(worker_argv), dict(extra, TUTORIAL_PS_WORKER_INDEX=str(i)))
                 for i in range(num_workers)]
        plan = [(role, index, argv, _node_env(role, port, num_workers, num_servers, more))
                for role, index, argv, more in plan]
        workers, seconds = supervise(plan, _start, timeout, where, poll, on_poll)
    return ClusterResult(workers, where if run_dir is not None else None, seconds)


def first_failed(nodes):
    """The process to blame for a failure: the first one that exited with an error."""
    return next(n for n in nodes if n.popen.poll() not in (None, 0))


def supervise(plan, start, timeout, run_dir, poll, on_poll=None, role="worker",
              culprit=first_failed, from_logs=False):
    """Start every process of ``plan``, wait for those of ``role``; stop everyone before
    returning. Returns a :class:`WorkerResult` per process of ``role`` and the seconds.

    ``plan``: ``(role, index, argv, env)`` per process, the first one leads the process
    group (the scheduler, Horovod's rank 0); ``start(role, index, argv, env, run_dir,
    group)`` starts one and returns its ``_Node`` (here :func:`_start`; the launchers for
    several hosts start them over ssh). ``culprit(nodes)`` picks the process a failure is
    blamed on. A process of ``role`` writes ``{role}{index}.json``; with ``from_logs`` it
    printed it in its log instead (on another host, ``tutorial.parallel.hosts.results``).
    """
    nodes, group, start_time = [], 0, time.monotonic()
    try:
        for node_role, index, argv, env in plan:
            nodes.append(start(node_role, index, argv, env, run_dir, group))
            group = group or nodes[0].popen.pid     # everyone joins the first one's group
        waited = [n for n in nodes if n.role == role]
        deadline = start_time + timeout
        while True:
            if any(n.popen.poll() not in (None, 0) for n in nodes):
                first = culprit(nodes)
                message = failure_message(first, [n for n in nodes if n is not first], run_dir)
                _stop(nodes, group)                              # after reading who had ended
                raise ClusterError(message, [n.popen.pid for n in nodes])
            if all(n.popen.poll() == 0 for n in waited):
                break
            if time.monotonic() > deadline:
                message = timeout_message(nodes, timeout, run_dir)   # before stopping
                _stop(nodes, group)
                raise ClusterError(message, [n.popen.pid for n in nodes])
            if on_poll is not None:
                on_poll([last_step(n.log()) for n in waited])
            time.sleep(poll)
        seconds = time.monotonic() - start_time
        _wait_for_exit(nodes, grace=10.0)   # servers and scheduler end by themselves
        return tuple(_finished(n, run_dir, from_logs) for n in waited), seconds
    finally:
        if nodes:
            _stop(nodes, group)


def _finished(node, run_dir, from_logs):
    stem, log = f"{node.role}{node.index}", node.log()
    if from_logs:
        log = results.unpack(log, run_dir, stem)
    return WorkerResult(node.index, log, read_result(run_dir, stem))
