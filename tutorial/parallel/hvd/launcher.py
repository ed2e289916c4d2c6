"""Run N Horovod ranks on this machine: a rendezvous, N processes, deadlines, clean stops.

The launcher does what ``horovodrun --gloo`` does (``rendezvous.py``) with the
supervision of the parameter-server launcher (``tutorial.parallel.ps.cluster``): every
rank runs in one process group with the launcher as its parent; the launcher polls them,
and the first rank that exits with an error, or the deadline, stops the whole group and
raises :class:`ClusterError` naming that rank, after which step, and its last log line.
Horovod cannot detect a dead rank by itself in time: the others wait in their next
allreduce until Gloo's own timeout.

The rendezvous listens on ``127.0.0.1`` at a free port (or ``port``, which must be free),
claimed like the scheduler's port of ``ps.cluster`` so two launchers never share one.

>>> run_horovod(["-c", "pass"], num_ranks=0)
Traceback (most recent call last):
...
ValueError: num_ranks must be a whole number >= 1 (the processes of the ring), got 0.
"""

import dataclasses
import os
import time
from pathlib import Path
from typing import Optional, Tuple

from tutorial.parallel.ps.cluster import REPO_ROOT, _start, supervise
from tutorial.parallel.ps.diagnosis import HOST_LOST, SEGFAULT
from tutorial.parallel.ps.ports import HOST, claimed_port
from tutorial.parallel.ps.rundir import run_directory
from tutorial.validate import check_count, check_range

# Lines a rank prints when ANOTHER rank died: never the first cause of a failure.
_AFTERMATH = ("Horovod has been shut down", "HorovodInternalError", "Connection closed by peer",
              "Connection reset", "Broken pipe", "gloo",
              # a rank whose peer died can abort in Gloo's threads (SIGABRT) with only this
              "terminate called without an active exception")
CAUSE_GRACE = 3.0      # seconds to wait for the rank that caused a failure to exit too


@dataclasses.dataclass(frozen=True)
class RankResult:
    rank: int                  # Horovod's rank (= the launch index)
    log: str                   # everything the rank printed
    result: Optional[dict]     # what it wrote to ``rank{rank}.json`` (None if nothing)


@dataclasses.dataclass(frozen=True)
class HorovodResult:
    ranks: Tuple[RankResult, ...]
    run_dir: Optional[Path]    # None when the logs were in a temporary folder, now removed
    seconds: float             # from the first launch to the last rank's exit
    command: str               # the horovodrun command line that starts the same ranks


def horovod_problem():
    """None when ``import horovod.mxnet`` works here; else why, and how to fix it."""
    from tutorial.install.horovod_build import horovod_problem as problem, left_out
    from tutorial.install.horovod_support import compiler_major, fix_for
    why = problem()
    if why is None:
        return None
    on_purpose = left_out()           # HOROVOD=0, or a Python Horovod does not run on
    if on_purpose:
        return f"Horovod is not usable here: {on_purpose}."
    return f"Horovod is not usable here: {why}. {fix_for(compiler_major())}"


def _rank_env(slot, port, run_dir, timeout, extra):
    from tutorial.parallel.hvd.rendezvous import INTERFACE, rank_env
    env = dict(os.environ)
    env.update(rank_env(slot, HOST, port, INTERFACE))
    env.update({"OMP_NUM_THREADS": "1", "MXNET_CPU_WORKER_NTHREADS": "1",
                "PYTHONUNBUFFERED": "1", "TUTORIAL_HVD_OUT_DIR": str(run_dir),
                "HOROVOD_GLOO_TIMEOUT_SECONDS": str(max(1, int(timeout)))})
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env.update(extra or {})
    return env


def run_horovod(worker_argv, num_ranks=2, timeout=120.0, port=None, run_dir=None,
                worker_env=None, poll=0.1, on_poll=None):
    """Start ``num_ranks`` ranks of ``python -u *worker_argv``; wait for all of them.

    Rank r gets the HOROVOD_* variables (``rendezvous.rank_env``) and
    ``TUTORIAL_HVD_OUT_DIR=run_dir``, where it may write ``rank{r}.json``; lines it prints
    as ``step N ...`` tell error messages how far it got, and ``on_poll(steps)`` gets the
    last step of every rank at each poll. Returns a :class:`HorovodResult` when every rank
    exited with code 0; stops every rank and raises :class:`ClusterError` otherwise. Every
    rank is stopped before this returns, also on an exception or KeyboardInterrupt.
    ``run_dir=None``: a temporary folder, removed after a good run, kept after a failure.
    """
    check_count("num_ranks", num_ranks, what="the processes of the ring")
    if not isinstance(worker_argv, (list, tuple)) or not all(isinstance(a, str)
                                                             for a in worker_argv):
        raise ValueError(f"worker_argv must be a list of strings such as ['-m', "
                         f"'tutorial.parallel.hvd.worker', ...], got {worker_argv!r}")
    timeout = check_range("timeout", timeout, 0.0, low_open=True)
    poll = check_range("poll", poll, 0.0, low_open=True)
    from tutorial.parallel.hvd.rendezvous import horovodrun_command
    command = horovodrun_command(["python", *worker_argv], num_ranks)
    with claimed_port(port) as port, run_directory(run_dir) as where:
        from tutorial.parallel.hvd.rendezvous import assign_slots, rendezvous  # horovod's
        slots = assign_slots(f"{HOST}:{num_ranks}", num_ranks)
        with rendezvous(slots, HOST, port):
            plan = [("rank", s.rank, tuple(worker_argv),
                     _rank_env(s, port, where, timeout, worker_env)) for s in slots]
            ranks, seconds = supervise_ranks(plan, _start, where, timeout, poll, on_poll)
    return HorovodResult(ranks, where if run_dir is not None else None, seconds, command)


def _aftermath(node):
    tail = node.log().strip().splitlines()[-3:]
    if any(SEGFAULT in line for line in tail):                   # a crash of its own
        return False
    return any(word in line for line in tail for word in _AFTERMATH)


def _lost_host(node):
    return getattr(node, "host", None) is not None and node.popen.returncode in HOST_LOST


def _culprit(nodes, grace=CAUSE_GRACE):
    """The failed rank that failed of its own accord, not because another one died.

    When a rank crashes, the others fail in their next allreduce, often first: wait up
    to ``grace`` seconds for a failed rank whose log does not just report that. A rank on
    another host that was killed or lost its connection (its host is down) comes first."""
    deadline = time.monotonic() + grace
    while True:
        failed = [n for n in nodes if n.popen.poll() not in (None, 0)]
        causes = ([n for n in failed if _lost_host(n)]
                  or [n for n in failed if not _aftermath(n)])
        if causes or time.monotonic() > deadline:
            return (causes or failed)[0]
        time.sleep(0.05)


def supervise_ranks(plan, start, run_dir, timeout, poll, on_poll, from_logs=False):
    """``ps.cluster.supervise`` for ranks: every process is a rank, blamed by :func:`_culprit`.

    ``start``: starts one rank here (``ps.cluster._start``) or on its host
    (``tutorial.parallel.hosts.remote.remote_start``). Returns a RankResult per rank.
    """
    done, seconds = supervise(plan, start, timeout, run_dir, poll, on_poll, role="rank",
                              culprit=_culprit, from_logs=from_logs)
    return tuple(RankResult(w.index, w.log, w.result) for w in done), seconds
