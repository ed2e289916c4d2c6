r"""What went wrong in a cluster, in words a learner can act on.

The launcher hands over the process that failed (or those still running at the
deadline); these functions read their logs and say who, how, after which step, the last
error line, and what to do. Workers report progress as lines ``step N ...``.

>>> _how_it_ended(-9), _how_it_ended(1)
('was killed by signal SIGKILL', 'exited with code 1')
>>> _last_line("step 1\nTraceback ...\nRuntimeError: boom\n")
'RuntimeError: boom'
>>> _last_line("Segmentation fault: 11\n\nterminate called without an active exception\n")
'Segmentation fault: 11'
"""

import re
import signal

_STEP = re.compile(r"^step (\d+)\b", re.MULTILINE)
# How a process on another host ends when the host, not the process, failed: killed
# (power off, out of memory), hung up on, or ssh's own code for a lost connection.
HOST_LOST = (-signal.SIGKILL, -signal.SIGHUP, 255)


def last_step(log):
    """The last ``step N`` a worker printed in its log (0 before its first step)."""
    steps = _STEP.findall(log)
    return int(steps[-1]) if steps else 0


class ClusterError(RuntimeError):
    """A cluster could not start, a process in it failed, or it ran past its deadline."""

    def __init__(self, message, pids=()):
        super().__init__(message)
        self.pids = tuple(pids)    # the processes it had started (all stopped by now)


# MXNet's handler prints this line on SIGSEGV, then calls exit(): the threads still running
# then abort the process ("terminate called without an active exception", SIGABRT).
SEGFAULT = "Segmentation fault"


def _last_line(text):
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    crashes = [ln for ln in lines if ln.startswith(SEGFAULT)]
    errors = [ln for ln in lines if "Error" in ln or "error" in ln]
    return (crashes or errors or lines or ["(it printed nothing)"])[-1][:400]


def _how_it_ended(code):
    if code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def _lost_host_message(node, others, when, run_dir):
    """For a process on another machine that was killed, or whose ssh lost the connection:
    the host comes first, since the process itself reported no error."""
    host = node.host
    ended = [n.name for n in others if n.host == host and n.popen.poll() is not None]
    also = f" ({', '.join(ended)} had ended too)" if ended else ""
    stopped = ", ".join(n.name for n in others) or "none"
    how = ("ssh lost its connection" if node.popen.returncode == 255
           else _how_it_ended(node.popen.returncode))
    return (f"host {host} looks down or unreachable: {node.name} {how} {when}{also}; the other "
            f"processes ({stopped}) were stopped. Check that `ssh {host} true` answers and that "
            f"the host did not run out of memory (`dmesg` there), then run again (logs of every "
            f"process are in {run_dir}).")


def failure_message(node, others, run_dir):
    text = node.log()
    steps = _STEP.findall(text)
    when = f"after step {steps[-1]}" if steps else "before finishing its first step"
    when = "while the workers ran" if node.role in ("scheduler", "server") else when
    if getattr(node, "host", None) is not None and node.popen.returncode in HOST_LOST:
        return _lost_host_message(node, others, when, run_dir)
    stopped = ", ".join(n.name for n in others) or "none"
    hint = ""
    if SEGFAULT in text and not steps:
        hint = (" A crash inside MXNet or Horovod before the first step happens now and then "
                "on a busy machine (Horovod 0.28 with MXNet 1.9): run again; if it repeats, "
                "read the log.")
    if "bind failed" in text or "no socket to node" in text:
        hint = (" The scheduler's port was taken (by another program, or a cluster started at "
                "the same moment); pass port=None to let the launcher pick a free one.")
    how = (f"crashed ({SEGFAULT.lower()}, then aborted)" if SEGFAULT in text
           else _how_it_ended(node.popen.returncode))
    return (f"{node.name} {how} {when}: {_last_line(text)}; "
            f"the other processes ({stopped}) were stopped. Read {node.log_path} for its full "
            f"log, fix the error it names, and run again (logs of every process are in {run_dir})."
            + hint)


NEVER_STARTED = "No worker finished a single step"


def timeout_message(nodes, timeout, run_dir):
    waiting, stepped = [], False
    for n in nodes:
        steps = _STEP.findall(n.log())
        stepped = stepped or (n.name.startswith(("worker", "rank")) and bool(steps))
        if n.popen.poll() is None:
            waiting.append(f"{n.name} ({'at step ' + steps[-1] if steps else 'no step done'})")
    start_up = ("" if stepped else
                f" {NEVER_STARTED}: the processes never got through starting up together (the "
                f"scheduler waits until every process has registered). On a busy machine that "
                f"happens now and then: run again; if it repeats, read the logs.")
    return (f"the cluster did not finish within timeout={timeout} s; still running: "
            f"{', '.join(waiting)}. All its processes were stopped. A worker that waits forever "
            f"usually means another process is stuck or the machine is busy: read the logs in "
            f"{run_dir}, then pass a larger timeout or fewer steps." + start_up)
