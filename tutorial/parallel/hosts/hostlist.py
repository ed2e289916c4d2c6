"""A host list such as ``"10.0.0.1:2,10.0.0.2:2"``: the machines, and how many workers each runs.

The format is Horovod's ``-H``: ``host:slots`` separated by commas, where ``host`` is a
hostname or an IPv4 address and ``slots`` how many worker processes it takes (a host
without ``:slots`` takes one).

>>> parse_hosts("10.0.0.1:2, 10.0.0.2:2")
(Host(address='10.0.0.1', slots=2), Host(address='10.0.0.2', slots=2))
>>> format_hosts(parse_hosts("gpu-a:4,gpu-b"))
'gpu-a:4,gpu-b:1'
>>> parse_hosts("10.0.0.1:2,10.0.0.1:1")
Traceback (most recent call last):
...
ValueError: host '10.0.0.1' appears twice in the host list '10.0.0.1:2,10.0.0.1:1'; name each machine once with all its slots, e.g. '10.0.0.1:3'.
"""

import re
from typing import NamedTuple

MAX_SLOTS = 1024
_ADDRESS = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$")   # hostname or IPv4
_EXAMPLE = "e.g. '10.0.0.1:2,10.0.0.2:2'"


class Host(NamedTuple):
    address: str     # what ssh connects to, and the address the host's processes announce
    slots: int       # how many worker processes it runs


def parse_hosts(text):
    """The hosts of ``text`` in order, as a tuple of :class:`Host`; ValueError for bad input."""
    if isinstance(text, (tuple, list)) and text and all(isinstance(h, Host) for h in text):
        text = format_hosts(text)
    if not isinstance(text, str):
        raise ValueError(f"hosts must be a string of host:slots separated by commas, {_EXAMPLE}; "
                         f"got {text!r}.")
    if not text.strip():
        raise ValueError(f"the host list is empty: name at least one host:slots, {_EXAMPLE}.")
    hosts = tuple(_parse_one(entry.strip(), text) for entry in text.split(","))
    seen = set()
    for host in hosts:
        if host.address in seen:
            slots = sum(h.slots for h in hosts if h.address == host.address)
            raise ValueError(f"host {host.address!r} appears twice in the host list {text!r}; "
                             f"name each machine once with all its slots, e.g. "
                             f"'{host.address}:{slots}'.")
        seen.add(host.address)
    return hosts


def _parse_one(entry, text):
    if not entry:
        raise ValueError(f"the host list {text!r} has an empty entry (two commas in a row, or one "
                         f"at an end); {_EXAMPLE}.")
    address, colon, slots = entry.partition(":")
    if ":" in slots:
        raise ValueError(f"{entry!r} in the host list has more than one ':'; IPv6 addresses "
                         f"are not supported here, use a hostname or an IPv4 address, "
                         f"{_EXAMPLE}.")
    if not _ADDRESS.match(address):
        raise ValueError(f"{address!r} in the host list {text!r} is not a hostname or an IPv4 "
                         f"address (letters, digits, '.' and '-' only); {_EXAMPLE}.")
    if not colon:
        return Host(address, 1)
    if not re.fullmatch("[0-9]+", slots) or not 1 <= int(slots) <= MAX_SLOTS:
        raise ValueError(f"{entry!r} in the host list: the slots after ':' must be a whole number "
                         f"from 1 to {MAX_SLOTS} (worker processes on that host), got {slots!r}.")
    return Host(address, int(slots))


def format_hosts(hosts):
    """The host list as text, as ``horovodrun -H`` takes it."""
    return ",".join(f"{h.address}:{h.slots}" for h in hosts)


def total_slots(hosts):
    return sum(h.slots for h in hosts)
