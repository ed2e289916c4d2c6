"""A ps-lite cluster over several machines: the scheduler, servers and workers on hosts.

The same launcher as on one machine (``tutorial.parallel.ps.cluster``: deadlines, every
process stopped, the failing one named), with three differences:

- each process starts through a command template, ``ssh {host} {command}`` by default,
  under the tether (``tether.py``), so no remote process outlives the launcher;
- the ps-lite variables name real addresses: ``DMLC_PS_ROOT_URI`` is the first host (the
  scheduler's), ``DMLC_NODE_HOST`` the host the process runs on, and ``DMLC_INTERFACE`` the
  network interface when one is given (the same name on every host, e.g. ``ens5``);
- the scheduler listens on ``port`` of the first host (9091 by default, a free port when
  that host is this machine): it must be free there, and the firewall must let the hosts reach each other on every TCP port (servers
  and workers listen on ports ps-lite picks).

Before anything starts, every host is asked to run Python in the course's folder, so a
host that is down, refuses ssh, or lacks the course is named at once. A host whose address
belongs to this machine runs its processes here, without ssh (as ``horovodrun`` does).
"""

import sys

from tutorial.parallel.hosts import results
from tutorial.parallel.hosts.hostlist import parse_hosts
from tutorial.parallel.hosts.placement import place
from tutorial.parallel.hosts.remote import (SSH, check_interface, check_launch, is_local,
                                            probe, remote_start)
from tutorial.parallel.ps.cluster import (REPO_ROOT, SERVER_ARGV, ClusterResult, dmlc_env,
                                          supervise)
from tutorial.parallel.ps.ports import free_port
from tutorial.parallel.ps.rundir import run_directory

DEFAULT_PORT = 9091          # what MXNet's tools/launch.py uses


def run_cluster_on_hosts(worker_argv, hosts, num_workers=None, num_servers=None, timeout=120.0,
                         port=None, interface=None, template=SSH, python=None,
                         remote_dir=None, run_dir=None, worker_env=None, poll=0.1,
                         on_poll=None, server_argv=SERVER_ARGV):
    """``run_cluster`` over ``hosts`` (``"a:2,b:2"``); returns a ``ClusterResult``.

    ``num_workers=None``: one per slot; ``num_servers=None``: one per host (see
    ``placement.py``). ``port``: the scheduler's on the first host; None: a free one when
    that host is this machine, else 9091. ``python`` and ``remote_dir``: the interpreter
    and the course's folder on every host (by default the same paths as here). Raises
    ClusterError naming the host and the process when a host does not answer or a process
    fails.
    """
    hosts = parse_hosts(hosts)
    rows = place(hosts, num_workers, num_servers)
    worker_argv, timeout, poll = check_launch(worker_argv, timeout, poll, template)
    if port is None:
        port = free_port() if is_local(hosts[0].address) else DEFAULT_PORT
    if not isinstance(port, int) or isinstance(port, bool) or not 1024 <= port <= 65535:
        raise ValueError(f"port must be a whole number from 1024 to 65535 (the scheduler's port "
                         f"on {hosts[0].address}), got {port!r}")
    if interface is not None:
        check_interface(interface, hosts)
    python, remote_dir = python or sys.executable, str(remote_dir or REPO_ROOT)
    with run_directory(run_dir) as where:
        probe(hosts, template, python, remote_dir)
        plan = _plan(rows, port, interface, remote_dir, worker_argv, server_argv, worker_env)
        host_of = {(row.role, row.index): row.host for row in rows}
        start = remote_start(template, python, remote_dir, host_of)
        done, seconds = supervise(plan, start, timeout, where, poll, on_poll, from_logs=True)
    return ClusterResult(done, where if run_dir is not None else None, seconds)


def _plan(rows, port, interface, remote_dir, worker_argv, server_argv, worker_env):
    """``(role, index, argv, env)`` per placed process: the variables it gets on its host."""
    workers = sum(r.role == "worker" for r in rows)
    servers = sum(r.role == "server" for r in rows)
    plan = []
    for row in rows:
        env = dmlc_env(row.role, port, workers, servers, root=rows[0].host, node_host=row.host)
        env.update(OMP_NUM_THREADS="1", MXNET_CPU_WORKER_NTHREADS="1", PYTHONUNBUFFERED="1",
                   PYTHONPATH=remote_dir)
        if interface is not None:
            env["DMLC_INTERFACE"] = interface
        if row.role == "worker":
            env.update(worker_env or {}, TUTORIAL_PS_WORKER_INDEX=str(row.index))
            env[results.ENV] = "1"                     # its result comes back in its log
        argv = worker_argv if row.role == "worker" else server_argv
        plan.append((row.role, row.index, tuple(argv), env))
    return plan
