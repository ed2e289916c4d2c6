"""nbval: a notebook cell tagged ``needs-horovod`` skips, with the reason, where set-up left
Horovod out on purpose (``HOROVOD=0``, or Python 3.14, which Horovod 0.28.1 does not run on)
or, outside CI, where it failed to build; the rest of the notebook is still compared. Under
CI (``CI=true``) a Horovod that should be there and is not makes those cells fail instead.
The tag is in the cell's metadata (JupyterLab: the property inspector, "Cell Tags")."""

import os

import pytest

NEEDS_HOROVOD = "needs-horovod"
NEEDS_RESIDENT = "needs-resident-memory"     # cells that read the kernel's memory counters


def _why_no_horovod():
    """None when the tagged cells should run, else why they skip."""
    from tutorial.install.horovod_build import horovod_problem, left_out
    problem = horovod_problem()           # imports horovod.mxnet in a fresh Python
    if problem is None:
        return None
    why = left_out()
    if why:
        return why
    if os.environ.get("CI", "").strip().lower() in ("1", "true", "yes"):
        return None                       # run them: they fail, saying why
    return problem


def _tagged(items, tag):
    return [item for item in items
            if tag in getattr(getattr(item, "cell", None), "metadata", {}).get("tags", ())]


def pytest_collection_modifyitems(config, items):
    resident = _tagged(items, NEEDS_RESIDENT)
    if resident:
        from tutorial.memory.resident import Resident
        why = Resident().why_not
        for item in resident if why else ():
            item.add_marker(pytest.mark.skip(reason=why))
    tagged = _tagged(items, NEEDS_HOROVOD)
    if not tagged:
        return
    why = _why_no_horovod()
    if why:
        for item in tagged:
            item.add_marker(pytest.mark.skip(reason=f"needs Horovod: {why}"))
