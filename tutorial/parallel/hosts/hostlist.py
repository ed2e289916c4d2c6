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

Hostnames are compared without regard to case, and ``localhost`` and every ``127.x.y.z``
name this machine, so ``"localhost:1,127.0.0.1:1"`` names one machine twice too.
"""

import re
from typing import NamedTuple

MAX_SLOTS = 1024
_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")   # RFC 1123
LOOPBACK = "this machine (localhost, 127.x.y.z)"
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
    seen = {}
    for host in hosts:
        key = machine(host.address)
        if key in seen:
            first = seen[key]
            slots = sum(h.slots for h in hosts if machine(h.address) == key)
            same = (f"host {host.address!r} appears twice" if first == host.address else
                    f"{first!r} and {host.address!r} name the same machine"
                    f"{' (this one)' if key == LOOPBACK else ' (names ignore case)'}")
            raise ValueError(f"{same} in the host list {text!r}; name each machine once with "
                             f"all its slots, e.g. '{first}:{slots}'.")
        seen[key] = host.address
    return hosts


def machine(address):
    """What identifies the machine ``address`` names: the name without its case, and one
    key for every loopback name (``localhost``, ``127.x.y.z``)."""
    name = address.lower()
    if name == "localhost" or name.startswith("127.") and _is_ipv4(name):
        return LOOPBACK
    return name


def _is_ipv4(address):
    parts = address.split(".")
    return len(parts) == 4 and all(p.isdigit() and int(p) <= 255 for p in parts)


def _address_problem(address):
    """Why ``address`` is neither a hostname nor an IPv4 address, or None."""
    labels = address.split(".")
    if all(label.isdigit() for label in labels):
        return None if _is_ipv4(address) else "an IPv4 address has four numbers from 0 to 255"
    if len(address) > 253 or not all(_LABEL.match(label) for label in labels):
        return ("a hostname is dot-separated names of letters, digits and '-' (none empty, "
                "none starting or ending with '-')")
    return None


def _parse_one(entry, text):
    if not entry:
        raise ValueError(f"the host list {text!r} has an empty entry (two commas in a row, or one "
                         f"at an end); {_EXAMPLE}.")
    address, colon, slots = entry.partition(":")
    if ":" in slots:
        raise ValueError(f"{entry!r} in the host list has more than one ':'; IPv6 addresses "
                         f"are not supported here, use a hostname or an IPv4 address, "
                         f"{_EXAMPLE}.")
    problem = _address_problem(address) if address else "it is empty"
    if problem:
        raise ValueError(f"{address!r} in the host list {text!r} is not a hostname or an IPv4 "
                         f"address: {problem}; {_EXAMPLE}.")
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
