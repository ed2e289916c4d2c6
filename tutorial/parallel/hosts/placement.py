"""Where each process of a parameter-server cluster runs, given a host list: a plan as data.

The scheduler runs on the first host (its address is ``DMLC_PS_ROOT_URI`` for everyone).
Servers go round the hosts, one per host by default, so each machine holds a share of
the weights and no single link carries every push and pull. Workers fill the hosts'
slots in order, as ``horovodrun -H`` places its ranks: host 0's slots first.

>>> for row in place(parse_hosts("10.0.0.1:2,10.0.0.2:2")):
...     print(*row)
scheduler 0 10.0.0.1
server 0 10.0.0.1
server 1 10.0.0.2
worker 0 10.0.0.1
worker 1 10.0.0.1
worker 2 10.0.0.2
worker 3 10.0.0.2
>>> place(parse_hosts("a:1,b:1"), num_workers=3)
Traceback (most recent call last):
...
ValueError: num_workers=3 is more than the 2 slots of the host list 'a:1,b:1': add slots (host:slots) or ask for fewer workers.
"""

from typing import NamedTuple

from tutorial.parallel.hosts.hostlist import format_hosts, parse_hosts, total_slots  # noqa: F401
from tutorial.validate import check_count


class Placement(NamedTuple):
    role: str        # scheduler | server | worker
    index: int       # within its role
    host: str        # the address of the host it runs on


def place(hosts, num_workers=None, num_servers=None):
    """One :class:`Placement` per process: the scheduler, then servers, then workers.

    ``num_workers=None``: one per slot. ``num_servers=None``: one per host.
    """
    num_workers = total_slots(hosts) if num_workers is None else num_workers
    num_servers = len(hosts) if num_servers is None else num_servers
    check_count("num_workers", num_workers, what="the processes that compute gradients")
    check_count("num_servers", num_servers, what="the processes that hold the weights")
    if num_workers > total_slots(hosts):
        raise ValueError(f"num_workers={num_workers} is more than the {total_slots(hosts)} slots "
                         f"of the host list {format_hosts(hosts)!r}: add slots (host:slots) or "
                         f"ask for fewer workers.")
    slots = [h.address for h in hosts for _ in range(h.slots)]
    return ((Placement("scheduler", 0, hosts[0].address),)
            + tuple(Placement("server", i, hosts[i % len(hosts)].address)
                    for i in range(num_servers))
            + tuple(Placement("worker", i, slots[i]) for i in range(num_workers)))
