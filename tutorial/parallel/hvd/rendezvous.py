"""Where Horovod's ranks meet, and the variables each rank gets: what ``horovodrun`` does.

``horovodrun --gloo -np 2 -H 127.0.0.1:2 --network-interface lo python train.py`` does
three things, and the launcher does the same three itself, so that it can choose the port,
keep every rank in one process group and read each rank's log:

1. start Gloo's *rendezvous*, a small HTTP key-value store where the ranks swap their
   addresses (horovod.runner.http.http_server; here bound to ``host:port``);
2. assign ranks to the hosts' slots (``127.0.0.1:2``: ranks 0 and 1, local ranks 0 and 1);
3. start every rank with these variables (``rank_env``):

    HOROVOD_RANK, HOROVOD_SIZE               this rank and how many there are
    HOROVOD_LOCAL_RANK, HOROVOD_LOCAL_SIZE   ... on its own host
    HOROVOD_CROSS_RANK, HOROVOD_CROSS_SIZE   ... among the hosts' same local ranks
    HOROVOD_HOSTNAME                         its host, as the rendezvous knows it
    HOROVOD_GLOO_RENDEZVOUS_ADDR / _PORT     where the rendezvous listens
    HOROVOD_CONTROLLER=gloo, HOROVOD_CPU_OPERATIONS=gloo   no MPI anywhere
    HOROVOD_GLOO_IFACE                       the network interface Gloo's ring uses (lo)

Then ``hvd.init()`` in each rank reads them, meets the others, and Gloo connects them in
a ring. (Only this module imports ``horovod.runner``; the launcher imports it when it runs.)

>>> from types import SimpleNamespace   # a SlotInfo of assign_slots("127.0.0.1:2", 2)
>>> slot = SimpleNamespace(hostname="127.0.0.1", rank=1, size=2, local_rank=1, local_size=2,
...                        cross_rank=0, cross_size=1)
>>> rank_env(slot, "127.0.0.1", 9000, "lo")["HOROVOD_RANK"]
'1'
>>> horovodrun_command(["python", "train.py"], 2)
'horovodrun --gloo -np 2 -H 127.0.0.1:2 --network-interface lo python train.py'
"""

import contextlib
import shlex
import threading

HOST, INTERFACE = "127.0.0.1", "lo"


def assign_slots(hosts, num_ranks):
    """horovodrun's assignment of ``num_ranks`` ranks to ``hosts`` ('host:slots,...')."""
    from horovod.runner.common.util.hosts import get_host_assignments, parse_hosts
    return get_host_assignments(parse_hosts(hosts), num_ranks, num_ranks)


def rank_env(slot, address, port, interface):
    """The variables horovodrun gives the rank of ``slot`` (a horovod SlotInfo)."""
    return {"HOROVOD_RANK": str(slot.rank), "HOROVOD_SIZE": str(slot.size),
            "HOROVOD_LOCAL_RANK": str(slot.local_rank),
            "HOROVOD_LOCAL_SIZE": str(slot.local_size),
            "HOROVOD_CROSS_RANK": str(slot.cross_rank),
            "HOROVOD_CROSS_SIZE": str(slot.cross_size),
            "HOROVOD_HOSTNAME": slot.hostname,
            "HOROVOD_GLOO_RENDEZVOUS_ADDR": address, "HOROVOD_GLOO_RENDEZVOUS_PORT": str(port),
            "HOROVOD_CONTROLLER": "gloo", "HOROVOD_CPU_OPERATIONS": "gloo",
            "HOROVOD_GLOO_IFACE": interface}


def horovodrun_command(argv, num_ranks, hosts=None, interface=INTERFACE):
    """The horovodrun command line that would start the same ranks (to read, or to run)."""
    hosts = hosts or f"{HOST}:{num_ranks}"
    return shlex.join(["horovodrun", "--gloo", "-np", str(num_ranks), "-H", hosts,
                       "--network-interface", interface, *argv])


@contextlib.contextmanager
def rendezvous(slots, address, port):
    """Serve Gloo's rendezvous for ``slots`` on ``address:port`` in a thread, for the block."""
    from horovod.runner.http.http_server import RendezvousHandler, RendezvousHTTPServer
    server = RendezvousHTTPServer((address, port), RendezvousHandler, 0)
    server.init(slots)
    thread = threading.Thread(target=server.serve_forever, name="hvd-rendezvous", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
