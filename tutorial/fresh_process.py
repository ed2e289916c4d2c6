"""One job in a fresh Python process; its answer is the last JSON line it prints.

Some measurements must start from a clean process: the kernel's memory counters
(:mod:`tutorial.memory.measured_memory`, :mod:`tutorial.sequence.length_memory`,
:mod:`tutorial.sequence.parallel_block_memory`), an engine type or a profiler
(:mod:`tutorial.memory.engine_timeline`), a float16 probe that may crash
(:mod:`tutorial.memory.amp_probe`). :func:`run` starts ``python -m module`` or
``python -c script`` with the job's arguments, the course on its ``PYTHONPATH`` and the
environment variables given, and returns the last line of its output that starts with
``{``, parsed. It never hangs and never shows a raw traceback:

- past ``timeout`` seconds the child is stopped and :class:`Stopped` says so in one line
  (subprocess's own message would print the whole script), with ``hint`` as the fix;
- a child that fails or prints no answer raises :class:`Failed`, naming the exit code
  and the child's last words: its last line that names an error, else its last line that
  is not one of MXNet's log lines (``[12:00:00] ...``).

>>> run("an echo", script="import json, sys; print(json.dumps({'got': sys.argv[1]}))",
...     args=["7"])
{'got': '7'}
>>> run("a failing job", script="import sys; sys.exit('no luck')")
Traceback (most recent call last):
...
tutorial.fresh_process.Failed: a failing job failed (exit code 1): no luck
"""

import json
import os
import subprocess
import sys
from pathlib import Path

from tutorial.validate import check_range

ROOT = Path(__file__).resolve().parents[1]        # the folder that holds ``tutorial``


class Stopped(TimeoutError, RuntimeError):
    """The child ran past its time and was stopped."""


class Failed(RuntimeError):
    """The child failed, or printed no answer."""


def last_words(stderr):
    """What a failed child said last: its last line naming an error, else its last line
    that is not an MXNet log line, else '(nothing)'."""
    said = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in said if "Error" in line or "Check failed" in line]
    plain = [line for line in said if not line.startswith("[")]
    return ((errors or plain or ["(nothing)"])[-1])[:300]


def run(what, module=None, script=None, args=(), env=None, timeout=300,
        hint="give it more time, e.g. timeout=600"):
    """The parsed last JSON line ``python -m module`` (or ``-c script``) prints given
    ``args``; ``env`` adds to this process's environment. ``what`` names the job in errors."""
    if (module is None) == (script is None):
        raise ValueError("give exactly one of module= (run with -m) or script= (run with -c)")
    timeout = check_range("timeout", timeout, 0.0, low_open=True)
    child_env = dict(os.environ, **(env or {}))
    child_env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in child_env.get("PYTHONPATH", "").split(os.pathsep) if p])
    command = [sys.executable] + (["-m", module] if module else ["-c", script])
    command += [a if isinstance(a, str) else json.dumps(a) for a in args]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env=child_env)
    except subprocess.TimeoutExpired:
        raise Stopped(f"{what} did not finish within timeout={timeout:g} s (it was "
                      f"stopped): {hint}") from None
    answers = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not answers:
        raise Failed(f"{what} failed (exit code {done.returncode}): "
                     f"{last_words(done.stderr)}")
    return json.loads(answers[-1])
