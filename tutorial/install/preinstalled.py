"""``make lab MXNET=preinstalled``: the course beside an MXNet the interpreter already has.

NVIDIA's MXNet container (NGC) is the one build of MXNet 1.9.1 that runs on Hopper GPUs
(README, "GPU notes"). Its Python already holds MXNet and Horovod. The route:

1. ``python -m tutorial.install.mxnet_build see-packages VENV``, run by that interpreter, lets the new
   environment see its packages after the environment's own (what ``venv
   --system-site-packages`` does for a system Python, and also for an interpreter that is
   itself a virtual environment, as in ``tests/install/test_preinstalled.py``);
2. ``VENV/bin/python -m tutorial.install.mxnet_build install preinstalled`` checks that MXNet imports,
   then installs every other pin and the course itself, not MXNet.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
PTH = "_tutorial_preinstalled.pth"


def install_around(course):
    """Everything but MXNet, next to the MXNet that this environment already sees."""
    found = subprocess.run([sys.executable, "-c", "import mxnet; print(mxnet.__version__)"],
                           capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=""))
    if found.returncode != 0:
        sys.exit("MXNET=preinstalled, but this interpreter sees no MXNet: run it where "
                 "`python -c 'import mxnet'` works (NVIDIA's MXNet container), or drop "
                 "MXNET=preinstalled to install the PyPI build")
    print(f"MXNet {found.stdout.strip()} is already installed: keeping it", flush=True)
    _pip("install", "--quiet", *course)
    _pip("install", "--quiet", "--no-deps", "--no-warn-conflicts", "--editable", ".")


def see_packages(venv):
    """Let the environment ``venv`` see this interpreter's packages, after its own."""
    import site
    target = next((Path(venv) / "lib").glob("python3*/site-packages"))
    dirs = [d for d in site.getsitepackages() + [site.getusersitepackages()] if Path(d).is_dir()]
    (target / PTH).write_text("\n".join(dirs) + "\n")
    print(f"{venv} sees the packages of {sys.executable}: {', '.join(dirs)}", flush=True)


def _pip(*args):
    print("+ pip " + " ".join(args), flush=True)
    subprocess.run([sys.executable, "-m", "pip", *args], cwd=ROOT, check=True)
