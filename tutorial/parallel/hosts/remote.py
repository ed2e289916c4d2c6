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
import string

# BatchMode: never ask for a password (that would hang); ConnectTimeout: a host that is
# down fails in 10 s; ServerAlive*: a host that dies during the run is noticed in 15 s.
SSH = ("ssh -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=5 "
       "-o ServerAliveCountMax=3 {host} {command}")
FIELDS = ("host", "command")
TETHER = "tutorial.parallel.hosts.tether"


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
