"""``make lab MXNET=preinstalled``: the course beside an MXNet the interpreter already has.

NVIDIA's MXNet container (NGC) is the one build of MXNet 1.9.1 that runs on Hopper GPUs
(README, "GPU notes"). Its Python already holds MXNet and Horovod. The route:

1. ``python -m tutorial.install.mxnet_build see-packages VENV``, run by that interpreter, lets the new
   environment see its packages after the environment's own (what ``venv
   --system-site-packages`` does for a system Python, and also for an interpreter that is
   itself a virtual environment, as in ``tests/install/test_preinstalled.py``);
2. ``VENV/bin/python -m tutorial.install.mxnet_build install preinstalled`` checks that MXNet
   imports, then installs every other pin and the course itself, but neither MXNet nor
   numpy: the container's MXNet was built against its own numpy (below 2), so the other
   pins are resolved against that numpy (a pip constraint), and a pin that needs a newer
   one stops the set-up with both versions named.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tutorial.install import pins

ROOT = pins.ROOT
PTH = "_tutorial_preinstalled.pth"


def install_around(course):
    """Everything but MXNet and numpy, next to the ones this environment already sees."""
    found = subprocess.run([sys.executable, "-c", "import mxnet, numpy; "
                            "print(mxnet.__version__, numpy.__version__)"],
                           capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=""))
    if found.returncode != 0:
        sys.exit("MXNET=preinstalled, but this interpreter sees no MXNet: run it where "
                 "`python -c 'import mxnet'` works (NVIDIA's MXNet container), or drop "
                 "MXNET=preinstalled to install the PyPI build\n" + found.stderr[-600:])
    mxnet_version, numpy_version = found.stdout.split()[-2:]
    print(f"MXNet {mxnet_version} and numpy {numpy_version} are already installed: keeping "
          f"them", flush=True)
    rest = [r for r in course if pins.name(r) != "numpy"]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", prefix="numpy-kept-") as constraint:
        constraint.write(f"numpy=={numpy_version}\n")
        constraint.flush()
        code = _pip("install", "--quiet", "--constraint", constraint.name, *rest, check=False)
    if code != 0:
        sys.exit(f"MXNET=preinstalled keeps this interpreter's numpy {numpy_version}, and "
                 f"some pin of the course needs another (pip's reason is above). The course "
                 f"was tested with numpy {pins.versions()['numpy']} on this Python.")
    _pip("install", "--quiet", "--no-deps", "--no-warn-conflicts", "--editable", ".")


def see_packages(venv):
    """Let the environment ``venv`` see this interpreter's packages, after its own."""
    import site
    target = next((Path(venv) / "lib").glob("python3*/site-packages"))
    dirs = [d for d in site.getsitepackages() + [site.getusersitepackages()] if Path(d).is_dir()]
    (target / PTH).write_text("\n".join(dirs) + "\n")
    print(f"{venv} sees the packages of {sys.executable}: {', '.join(dirs)}", flush=True)


def _pip(*args, check=True):
    print("+ pip " + " ".join(args), flush=True)
    return subprocess.run([sys.executable, "-m", "pip", *args], cwd=ROOT,
                          check=check).returncode
