"""Starting a process on another host through a command template (ssh by default).

A template is a command line with two fields: ``{host}``, the host's address, and
``{command}``, one shell command to run there (``cd`` to the course, set the variables,
start Python). ``{command}`` must be a word of its own: it is handed over as ONE
argument, so ssh passes it to the remote shell as it is, and no quoting is lost.

    ssh {host} {command}                              # the default, with the options below
    ip netns exec tut_{host} sh -c {command}          # the tests' "hosts": network namespaces

>>> remote_argv("ssh {host} {command}", "10.0.0.2", "cd /course && python -c pass")
['ssh', '10.0.0.2', 'cd /course && python -c pass']
>>> shell_command(["python", "-u", "-m", "worker"], {"DMLC_ROLE": "worker"}, "/my course")
"cd '/my course' && exec env DMLC_ROLE=worker python -u -m worker"
>>> check_template("ssh {host} 'cd /course; {command}'")
Traceback (most recent call last):
...
ValueError: template must contain {command} as a word of its own (it is passed as one argument), e.g. 'ssh {host} {command}'; got "ssh {host} 'cd /course; {command}'"
"""

import shlex
import socket
import string
import subprocess
from concurrent.futures import ThreadPoolExecutor

from tutorial.parallel.ps.cluster import _child_setup, _Node, log_path
from tutorial.parallel.ps.diagnosis import ClusterError
from tutorial.validate import check_range

# BatchMode: never ask for a password (that would hang); ConnectTimeout: a host that is
# down fails in 10 s; ServerAlive*: a host that dies during the run is noticed in 15 s.
SSH = ("ssh -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=5 "
       "-o ServerAliveCountMax=3 {host} {command}")
FIELDS = ("host", "command")
LOCAL = "sh -c {command}"           # a host that is this machine: no ssh
TETHER = "tutorial.parallel.hosts.tether"
PROBE_SECONDS = 30.0


def check_template(template):
    """The template's words (``shlex.split``); ValueError saying what is wrong with it."""
    if not isinstance(template, str):
        raise ValueError(f"template must be a string such as 'ssh {{host}} {{command}}', "
                         f"got {template!r}")
    try:
        words = shlex.split(template)
        fields = [f for word in words for _, f, _, _ in string.Formatter().parse(word) if f]
    except ValueError as error:
        raise ValueError(f"template {template!r} is not a valid command line ({error}); "
                         f"e.g. 'ssh {{host}} {{command}}'") from None
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown:
        raise ValueError(f"template {template!r} has the unknown field(s) {unknown}: only "
                         f"{{host}} and {{command}} are filled in")
    if words.count("{command}") != 1 or fields.count("command") != 1:
        raise ValueError(f"template must contain {{command}} as a word of its own (it is passed "
                         f"as one argument), e.g. 'ssh {{host}} {{command}}'; got {template!r}")
    return words


def check_launch(worker_argv, timeout, poll, template):
    """The arguments every launcher over hosts checks: ``(worker_argv, timeout, poll)``."""
    if not isinstance(worker_argv, (list, tuple)) or not all(isinstance(a, str)
                                                             for a in worker_argv):
        raise ValueError(f"worker_argv must be a list of strings such as ['-m', "
                         f"'tutorial.parallel.ps.worker', ...], got {worker_argv!r}")
    check_template(template)
    return (tuple(worker_argv), check_range("timeout", timeout, 0.0, low_open=True),
            check_range("poll", poll, 0.0, low_open=True))


def check_interface(interface, hosts=()):
    """``interface`` if it looks like a network interface's name and, when one of ``hosts``
    (parsed) is this machine, this machine has it; else a ValueError."""
    if not isinstance(interface, str) or not interface or not interface.isprintable() \
            or " " in interface or "/" in interface or len(interface) > 15:
        raise ValueError(f"interface must be a network interface's name such as 'eth0' or "
                         f"'ens5' (`ip addr` on the hosts lists them), got {interface!r}")
    if any(is_local(host.address) for host in hosts):
        names = [name for _, name in socket.if_nameindex()]
        if interface not in names:
            raise ValueError(f"this machine has no network interface {interface!r} (it has "
                             f"{', '.join(names)}), and it is one of the hosts: pass the name "
                             f"that `ip addr` shows on every host")
    return interface


def remote_argv(template, host, command):
    """The local command line that runs the shell command ``command`` on ``host``."""
    return [command if word == "{command}" else word.format(host=host)
            for word in check_template(template)]


def shell_command(argv, env, cwd):
    """One shell command: go to ``cwd``, then run ``argv`` with the variables ``env`` added."""
    assignments = [shlex.quote(f"{k}={v}") for k, v in sorted(env.items())]
    return " ".join(["cd", shlex.quote(str(cwd)), "&&", "exec", "env", *assignments,
                     *map(shlex.quote, argv)])


def tethered(python, argv):
    """``argv`` run under the tether on the remote host (see ``tether.py``)."""
    return [python, "-u", "-m", TETHER, *argv]


def is_local(address):
    """True when ``address`` belongs to this machine (a socket can be bound to it).

    >>> is_local("127.0.0.1"), is_local("192.0.2.1")     # 192.0.2.0/24: documentation only
    (True, False)
    """
    try:
        infos = socket.getaddrinfo(address, None, socket.AF_INET, socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return False
    for *_, sockaddr in infos:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((sockaddr[0], 0))
                return True
            except OSError:
                pass
    return False


def template_for(host, template):
    """``template`` for another machine, :data:`LOCAL` for this one."""
    return LOCAL if is_local(host) else template


def probe(hosts, template, python, remote_dir, seconds=PROBE_SECONDS):
    """Ask every host at once to start Python in the course's folder; ClusterError if one fails."""
    command = shell_command([python, "-c", "import tutorial.parallel.hosts"],
                            {"PYTHONPATH": remote_dir}, remote_dir)

    def ask(host):
        argv = remote_argv(template_for(host.address, template), host.address, command)
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=seconds,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return f"did not answer within {seconds:g} s"
        except OSError as error:
            return f"could not be reached: {argv[0]!r} failed to start ({error.strerror})"
        if done.returncode != 0:
            said = (done.stderr.strip() or done.stdout.strip() or "nothing").splitlines()[-1]
            return f"failed (exit code {done.returncode}): {said[:300]}"
        return None

    with ThreadPoolExecutor(max_workers=len(hosts)) as pool:
        answers = list(pool.map(ask, hosts))
    bad = [(h.address, a) for h, a in zip(hosts, answers) if a is not None]
    if bad:
        where = "; ".join(f"host {address} {answer}" for address, answer in bad)
        raise ClusterError(
            f"{where}. Nothing was started. Each host must run `{command}` through the template "
            f"{template!r}: check that `ssh HOST true` works without a password, and that "
            f"{python} and the course's folder {remote_dir} exist on every host.")


def remote_start(template, python, remote_dir, host_of):
    """A ``start`` for ``ps.cluster.supervise``: process ``(role, index)`` runs on host
    ``host_of[role, index]`` under the tether, whose stdin is a pipe from here."""
    def start(role, index, argv, env, run_dir, group):
        host = host_of[role, index]
        command = shell_command(tethered(python, [python, "-u", *argv]), env, remote_dir)
        path = log_path(run_dir, role, index)
        with open(path, "wb") as log:
            popen = subprocess.Popen(remote_argv(template_for(host, template), host, command),
                                     cwd=run_dir, stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.PIPE, preexec_fn=_child_setup(group))
        return _Node(role, index, popen, path, host)
    return start
