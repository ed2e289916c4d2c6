"""Horovod's ring over several machines: what ``horovodrun --gloo -H a:2,b:2`` does, supervised.

The one-machine launcher (``tutorial.parallel.hvd.launcher``) serves Gloo's rendezvous
itself and starts every rank with the HOROVOD_* variables. Over hosts it does the same,
with the pieces the parameter server's launcher uses (``pslite.py``):

- the ranks fill the hosts' slots in order, as horovodrun assigns them;
- every rank starts through the command template (ssh by default) under the tether, or
  directly on a host that is this machine;
- the rendezvous listens on this machine at ``rendezvous_address`` (by default the
  address of the host in the list that is this machine), on a port the system picks;
  every rank must be able to reach it;
- Gloo's ring runs over ``interface`` (``HOROVOD_GLOO_IFACE``, horovodrun's
  ``--network-interface``), which must carry the same name on every host.

A dead host is named (``host ... looks down or unreachable``), every rank is stopped, and
the result carries the equivalent ``horovodrun`` command line.
"""

import sys

from tutorial.parallel.hosts import results
from tutorial.parallel.hosts.hostlist import format_hosts, parse_hosts, total_slots
from tutorial.parallel.hosts.remote import (SSH, check_interface, check_launch, is_local,
                                            probe, remote_start)
from tutorial.parallel.hvd.launcher import HorovodResult, supervise_ranks
from tutorial.parallel.ps.cluster import REPO_ROOT
from tutorial.parallel.ps.rundir import run_directory
from tutorial.validate import check_count


def rendezvous_host(hosts):
    """The address of the first host in ``hosts`` that is this machine, or None."""
    return next((h.address for h in hosts if is_local(h.address)), None)


def run_horovod_on_hosts(worker_argv, hosts, interface, num_ranks=None, timeout=120.0,
                         template=SSH, rendezvous_address=None, python=None, remote_dir=None,
                         run_dir=None, worker_env=None, poll=0.1, on_poll=None):
    """``run_horovod`` over ``hosts`` (``"a:2,b:2"``); returns a ``HorovodResult``.

    ``num_ranks=None``: one per slot. ``python`` and ``remote_dir``: the interpreter and
    the course's folder on every host (by default the same paths as here).
    """
    hosts = parse_hosts(hosts)
    num_ranks = total_slots(hosts) if num_ranks is None else num_ranks
    check_count("num_ranks", num_ranks, what="the processes of the ring")
    if num_ranks > total_slots(hosts):
        raise ValueError(f"num_ranks={num_ranks} is more than the {total_slots(hosts)} slots of "
                         f"the host list {format_hosts(hosts)!r}: add slots or ask for fewer "
                         f"ranks.")
    worker_argv, timeout, poll = check_launch(worker_argv, timeout, poll, template)
    check_interface(interface, hosts)
    address = rendezvous_address or rendezvous_host(hosts)
    if address is None or not is_local(address):
        raise ValueError(f"the ranks meet at a rendezvous on this machine, and "
                         + (f"this machine is none of the hosts {format_hosts(hosts)!r}"
                            if address is None else
                            f"rendezvous_address={address!r} is not one of its addresses")
                         + ": pass rendezvous_address=..., an address of this machine that "
                           "every host can reach.")
    python, remote_dir = python or sys.executable, str(remote_dir or REPO_ROOT)
    from tutorial.parallel.hvd.rendezvous import assign_slots, horovodrun_command, rendezvous
    command = horovodrun_command(["python", *worker_argv], num_ranks, hosts=format_hosts(hosts),
                                 interface=interface)
    with run_directory(run_dir) as where:
        probe(hosts, template, python, remote_dir)
        slots = assign_slots(format_hosts(hosts), num_ranks)
        with rendezvous(slots, address, 0) as server:           # 0: a port the system picks
            port = server.server_address[1]
            envs = [_rank_env(slot, address, port, interface, remote_dir, timeout, worker_env)
                    for slot in slots]
            start = remote_start(template, python, remote_dir,
                                 {("rank", s.rank): s.hostname for s in slots})
            plan = [("rank", s.rank, tuple(worker_argv), env) for s, env in zip(slots, envs)]
            ranks, seconds = supervise_ranks(plan, start, where, timeout, poll, on_poll,
                                             from_logs=True)
    return HorovodResult(ranks, where if run_dir is not None else None, seconds, command)


def _rank_env(slot, address, port, interface, remote_dir, timeout, extra):
    """What one rank gets: horovodrun's variables and the course's (no local environment)."""
    from tutorial.parallel.hvd.rendezvous import rank_env
    env = rank_env(slot, address, port, interface)
    env.update({"OMP_NUM_THREADS": "1", "MXNET_CPU_WORKER_NTHREADS": "1",
                "PYTHONUNBUFFERED": "1", "PYTHONPATH": remote_dir, results.ENV: "1",
                "HOROVOD_GLOO_TIMEOUT_SECONDS": str(max(1, int(timeout)))})
    env.update(extra or {})
    return env
