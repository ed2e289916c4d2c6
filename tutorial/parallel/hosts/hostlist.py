"""A host list such as ``"10.0.0.1:2,10.0.0.2:2"``: the machines, and how many workers each runs.

The format is Horovod's ``-H``: ``host:slots`` separated by commas, where ``host`` is a
hostname or an IPv4 address and ``slots`` how many worker processes it takes (a host
without ``:slots`` takes one). Each machine appears once: host names ignore case, and
``localhost`` and 127.x.x.x are all this machine.

>>> parse_hosts("10.0.0.1:2, 10.0.0.2:2")
(Host(address='10.0.0.1', slots=2), Host(address='10.0.0.2', slots=2))
>>> format_hosts(parse_hosts("gpu-a:4,gpu-b"))
'gpu-a:4,gpu-b:1'
>>> parse_hosts("10.0.0.1:2,10.0.0.1:1")
Traceback (most recent call last):
...
ValueError: host '10.0.0.1' appears twice in the host list '10.0.0.1:2,10.0.0.1:1'; name each machine once with all its slots, e.g. '10.0.0.1:3'.
>>> parse_hosts("999.1.1.1:2")
Traceback (most recent call last):
...
ValueError: '999.1.1.1' in the host list '999.1.1.1:2': 999 is more than 255; an IPv4 address is four numbers from 0 to 255, e.g. '10.0.0.1'.
"""

import re
from typing import NamedTuple

MAX_SLOTS = 1024
_ADDRESS = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$")   # hostname or IPv4
_MAX_LABEL, _MAX_NAME = 63, 253       # a hostname's parts, and the whole name (RFC 1123)
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
    seen = {}                                     # machine -> the first host naming it
    for host in hosts:
        first = seen.setdefault(_machine(host.address), host)
        if first is not host:
            _refuse_twice(first, host, hosts, text)
    return hosts


def _machine(address):
    """Which machine ``address`` names: names ignore case, and localhost and 127.x.x.x are
    all this machine's loopback."""
    address = address.lower()
    return "this machine" if address == "localhost" or address.startswith("127.") else address


def _refuse_twice(first, again, hosts, text):
    slots = sum(h.slots for h in hosts if _machine(h.address) == _machine(first.address))
    fix = (f"name each machine once with all its slots, e.g. '{first.address}:{slots}'.")
    if first.address == again.address:
        raise ValueError(f"host {first.address!r} appears twice in the host list {text!r}; {fix}")
    why = ("this one: localhost and 127.x.x.x are its loopback addresses"
           if _machine(first.address) == "this machine" else "host names ignore case")
    raise ValueError(f"{first.address!r} and {again.address!r} in the host list {text!r} are the "
                     f"same machine ({why}); {fix}")


def _parse_one(entry, text):
    if not entry:
        raise ValueError(f"the host list {text!r} has an empty entry (two commas in a row, or one "
                         f"at an end); {_EXAMPLE}.")
    address, colon, slots = entry.partition(":")
    if ":" in slots:
        raise ValueError(f"{entry!r} in the host list has more than one ':'; IPv6 addresses "
                         f"are not supported here, use a hostname or an IPv4 address, "
                         f"{_EXAMPLE}.")
    _check_address(address, text)
    if not colon:
        return Host(address, 1)
    if not re.fullmatch("[0-9]+", slots) or not 1 <= int(slots) <= MAX_SLOTS:
        raise ValueError(f"{entry!r} in the host list: the slots after ':' must be a whole number "
                         f"from 1 to {MAX_SLOTS} (worker processes on that host), got {slots!r}.")
    return Host(address, int(slots))


def _check_address(address, text):
    """A ValueError unless ``address`` is a hostname or an IPv4 address."""
    where = f"{address!r} in the host list {text!r}"
    if not _ADDRESS.match(address):
        raise ValueError(f"{where} is not a hostname or an IPv4 address (letters, digits, '.' "
                         f"and '-' only); {_EXAMPLE}.")
    parts = address.split(".")
    if "" in parts:
        raise ValueError(f"{where} has an empty name between two dots; {_EXAMPLE}.")
    if all(part.isascii() and part.isdigit() for part in parts):        # an IPv4 address
        if len(parts) != 4:
            raise ValueError(f"{where} has {len(parts)} number{'s' * (len(parts) > 1)}; an "
                             f"IPv4 address has 4, each from 0 to 255, e.g. '10.0.0.1'.")
        big = next((part for part in parts if int(part) > 255), None)
        if big is not None:
            raise ValueError(f"{where}: {big} is more than 255; an IPv4 address is four "
                             f"numbers from 0 to 255, e.g. '10.0.0.1'.")
        return
    bad = next((part for part in parts if part.startswith("-") or part.endswith("-")
                or len(part) > _MAX_LABEL), None)
    if bad is not None:
        raise ValueError(f"{bad[:20]!r} in {where} starts or ends with '-' or is longer than "
                         f"{_MAX_LABEL} characters: each name between dots must not; "
                         f"{_EXAMPLE}.")
    if len(address) > _MAX_NAME:
        raise ValueError(f"the host {address[:40]!r}... in the host list is {len(address)} "
                         f"characters long; a hostname has at most {_MAX_NAME}.")


def format_hosts(hosts):
    """The host list as text, as ``horovodrun -H`` takes it."""
    return ",".join(f"{h.address}:{h.slots}" for h in hosts)


def total_slots(hosts):
    return sum(h.slots for h in hosts)
