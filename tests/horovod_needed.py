"""``require_horovod()``: a Horovod test skips, with the fix, where the build failed, and
fails under CI (CI=true), where set-up must have built it, unless set-up was told to leave
it out (``make unit HOROVOD=0``, or a Python Horovod does not work on: 3.14)."""

import functools
import os

import pytest


@functools.lru_cache(maxsize=None)
def _problem():
    from tutorial.parallel.hvd.launcher import horovod_problem
    return horovod_problem()          # imports horovod.mxnet in a fresh Python, once


def require_horovod():
    problem = _problem()
    if problem is None:
        return
    from tutorial.install.horovod_build import left_out
    why = left_out()
    if why:
        pytest.skip(why)
    if os.environ.get("CI", "").strip().lower() in ("1", "true", "yes"):
        pytest.fail(f"{problem} (CI is set: `make test` must have installed Horovod)")
    pytest.skip(problem)
