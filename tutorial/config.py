"""Fast mode: the one place that reads ``TUTORIAL_FAST``.

``make test`` sets ``TUTORIAL_FAST=1`` so that every notebook runs in CI's time on
two CPU cores; without it the notebooks run at full size. Notebooks never read the
variable themselves: they ask for sizes through :func:`pick`.

>>> pick(full=60000, fast=2000, env={"TUTORIAL_FAST": "1"})
2000
>>> pick(full=60000, fast=2000, env={})
60000
"""

import os

ENV_VAR = "TUTORIAL_FAST"


def fast_mode(env=None):
    """True when ``TUTORIAL_FAST`` is set to anything but '', '0', 'false' or 'no'."""
    value = (os.environ if env is None else env).get(ENV_VAR, "")
    return value.strip().lower() not in ("", "0", "false", "no")


def pick(full, fast, env=None):
    """Return ``fast`` in fast mode and ``full`` otherwise."""
    return fast if fast_mode(env) else full


def banner(env=None):
    """One line a notebook prints so the reader knows which sizes produced its numbers."""
    if fast_mode(env):
        return (f"Fast mode ({ENV_VAR}=1): reduced sizes so the course checks in minutes; "
                f"unset {ENV_VAR} to run at full size.")
    return f"Full size ({ENV_VAR} is not set)."
