"""Every process of the environment imports MXNet with numpy 1.26: the .pth hook restores
np.bool & co. before MXNet loads, and costs nothing to a process that never imports it."""

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tutorial.install import numpy_compat

SITE = Path(sysconfig.get_paths()["purelib"])
installed = pytest.mark.skipif(
    not (SITE / f"{numpy_compat.INSTALLED_NAME}.pth").exists(),
    reason="runs in an environment the course's set-up made (make test)")


def _python(code, **kwargs):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, **kwargs)


@installed
def test_a_bare_python_c_imports_mxnet_and_trains():
    """No PYTHONPATH, no import of ours first: only the environment's start-up."""
    done = _python("import mxnet as mx, numpy as np\n"
                   "net = mx.gluon.nn.Dense(2); net.initialize()\n"
                   "t = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})\n"
                   "with mx.autograd.record(): l = net(mx.nd.ones((4, 3))).sum()\n"
                   "l.backward(); t.step(4)\n"
                   "print(np.__version__, np.bool is bool, np.object is object)",
                   cwd="/", env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[1:] == ["True", "True"]


@installed
def test_a_process_that_never_imports_mxnet_does_not_load_numpy():
    done = _python("import sys; finders = [repr(f) for f in sys.meta_path]; "
                   "print('numpy' in sys.modules, finders.index('<numpy aliases for mxnet>') "
                   "< [i for i, f in enumerate(finders) if 'PathFinder' in f][0])", cwd="/")
    assert done.stdout.split() == ["False", "True"], done.stderr


@installed
def test_the_installed_copy_is_this_file():
    copy = SITE / f"{numpy_compat.INSTALLED_NAME}.py"
    assert copy.read_text() == Path(numpy_compat.__file__).read_text(), \
        "tutorial/install/numpy_compat.py changed since set-up: run make again"


def test_install_writes_a_module_and_a_pth_line_that_arms_it(tmp_path):
    pth = numpy_compat.install(tmp_path)
    assert pth.read_text().startswith(f"import {numpy_compat.INSTALLED_NAME};")
    done = _python(f"import site, sys; site.addsitedir({str(tmp_path)!r}); "
                   "import numpy; had = 'bool' in vars(numpy); import mxnet; "
                   "print(had, numpy.bool is bool, numpy.str is str)", cwd="/")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "True"]


def test_without_the_hook_numpy_126_has_no_aliases():
    """The reason for the hook: take it away and MXNet's np.bool fails (the test can fail)."""
    done = _python("import sys; sys.meta_path[:] = [f for f in sys.meta_path "
                   "if type(f).__name__ != 'BeforeMXNet']; import numpy; print(hasattr(numpy, 'bool'))",
                   cwd="/")
    assert done.stdout.strip() == "False"
