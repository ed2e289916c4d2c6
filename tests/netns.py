"""Network namespaces standing in for machines: each has its own address on one switch.

``Machines(["10.77.0.1", "10.77.0.2"])`` makes a namespace per address, plus one holding
a bridge (the switch); each machine's end of a veth pair is called ``tut0`` and carries
its address, the other end is on the bridge. Nothing changes in the host's own network.
A process runs "on" a machine through ``Machines.template`` (``ip netns exec NAME ...``),
in a UTS namespace of its own whose hostname is the machine's address.
``close()`` kills every process left in the namespaces and deletes them.

Needs root and ``ip``; :func:`unavailable` says why not, when not.
"""

import os
import shutil
import signal
import subprocess

INTERFACE = "tut0"
# ``sh -c HOSTNAME_FIRST COMMAND``: name the machine after {host}, then run COMMAND. Horovod
# 0.28's Gloo process sets ignore HOROVOD_GLOO_IFACE and bind the address the hostname
# resolves to; an IPv4 address as hostname resolves to itself.
HOSTNAME_FIRST = "'hostname {host} && exec sh -c \"$0\"'"


def unavailable():
    """Why namespaces cannot be made here, or None when they can."""
    if shutil.which("ip") is None:
        return "the `ip` command (iproute2) is not installed"
    if os.geteuid() != 0:
        return "making network namespaces needs root"
    probe = f"tutprobe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"`ip netns add` failed: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _ip(*args):
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise RuntimeError(f"`ip {' '.join(args)}` failed: {done.stderr.strip()}")
    return done.stdout


class Machines:
    def __init__(self, addresses, prefix=None):
        self.prefix = prefix or f"tut{os.getpid()}"
        self.addresses = list(addresses)
        self.switch = f"{self.prefix}_switch"
        self.names = [f"{self.prefix}_{a}" for a in self.addresses]
        # Each machine also gets a hostname of its own, its address (a UTS namespace), since
        # Gloo's process sets find their address from the hostname (see HOSTNAME_FIRST).
        self.template = (f"ip netns exec {self.prefix}_{{host}} unshare --uts sh -c "
                         f"{HOSTNAME_FIRST} {{command}}")
        try:
            self._build()
        except BaseException:
            self.close()
            raise

    def _build(self):
        _ip("netns", "add", self.switch)
        _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.switch, "link", "set", "br0", "up")
        for i, (name, address) in enumerate(zip(self.names, self.addresses)):
            _ip("netns", "add", name)
            _ip("-n", name, "link", "set", "lo", "up")
            _ip("link", "add", INTERFACE + "x", "netns", name, "type", "veth",
                "peer", "name", f"port{i}", "netns", self.switch)
            _ip("-n", name, "link", "set", INTERFACE + "x", "name", INTERFACE)
            _ip("-n", name, "addr", "add", f"{address}/24", "dev", INTERFACE)
            _ip("-n", name, "link", "set", INTERFACE, "up")
            _ip("-n", self.switch, "link", "set", f"port{i}", "master", "br0")
            _ip("-n", self.switch, "link", "set", f"port{i}", "up")

    def name_of(self, address):
        return f"{self.prefix}_{address}"

    def argv_on(self, address, argv):
        """``argv`` run on the machine ``address`` (its namespace and hostname)."""
        return ["ip", "netns", "exec", self.name_of(address), "unshare", "--uts", "sh", "-c",
                'hostname "$0" && exec "$@"', address, *argv]

    def pids(self, address=None):
        names = self.names if address is None else [self.name_of(address)]
        found = []
        for name in names + ([self.switch] if address is None else []):
            done = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True)
            found += [int(p) for p in done.stdout.split()]
        return found

    def kill(self, address):
        """Power a machine off: SIGKILL every process in its namespace."""
        for pid in self.pids(address):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def close(self):
        for address in self.addresses:
            self.kill(address)
        for name in self.names + [self.switch]:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)


def skip_or_fail(reason):
    """Skip with ``reason`` here; under CI (``CI`` set) fail instead, so the test cannot vanish."""
    import pytest
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so this is an error: CI must run this test as root "
                    f"with iproute2 installed)")
    pytest.skip(reason)
