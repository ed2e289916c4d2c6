"""numpy's removed names, derived from what MXNet, d2l and Horovod read, restored in every
process of the environment: MXNet imports and trains on numpy 1.26 and on numpy 2.

The table in tutorial/install/numpy_compat.py is checked against the installed packages'
source, not against a list written by hand: every attribute they take from ``numpy`` (read
with ``ast``), and the names MXNet looks up by string (its dispatch lists).
"""

import ast
import importlib.util
import json
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
                          timeout=180, **kwargs)


def numpy_names(source):
    """{name: (attribute path)} that one module's ``source`` reads from numpy: ``np.X`` and
    ``np.X.Y`` for every name bound by ``import numpy [as np]``, ``from numpy import X``,
    and, in a module that calls ``getattr(np, ...)``, every string of its module-level
    lists (MXNet's dispatch lists name numpy functions that way)."""
    tree = ast.parse(source)
    aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
               for a in n.names if a.name == "numpy"}
    found = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) \
                and n.value.id in aliases:
            found.add((n.attr,))
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Attribute) \
                and isinstance(n.value.value, ast.Name) and n.value.value.id in aliases:
            found.add((n.value.attr, n.attr))
        elif isinstance(n, ast.ImportFrom) and n.module == "numpy" and n.level == 0:
            found.update((a.name,) for a in n.names if a.name != "*")
    looks_up = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                   and n.func.id == "getattr" and n.args and isinstance(n.args[0], ast.Name)
                   and n.args[0].id in aliases for n in ast.walk(tree))
    if looks_up:
        for n in tree.body:
            if isinstance(n, ast.Assign) and isinstance(n.value, (ast.List, ast.Tuple)):
                found.update(tuple(e.value.split(".")) for e in n.value.elts
                             if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return found


def names_read(package):
    """{attribute path: [files]} that the installed ``package`` reads from numpy."""
    spec = importlib.util.find_spec(package)
    if spec is None:
        return {}
    root = Path(list(spec.submodule_search_locations)[0])
    read = {}
    for path in sorted(root.rglob("*.py")):
        try:
            names = numpy_names(path.read_text(errors="replace"))
        except SyntaxError:          # Python 2 leftovers in examples; nothing imports them
            continue
        for name in names:
            read.setdefault(name, []).append(str(path.relative_to(root.parent)))
    return read


def _read_by_all():
    read = {}
    for package in numpy_compat.READERS:
        for name, files in names_read(package).items():
            read.setdefault(name, []).extend(files)
    return read


def test_the_reader_finds_attributes_imports_and_looked_up_lists():
    source = ("import numpy as onp\nfrom numpy import msort\nx = onp.PZERO + onp.compat.long\n"
              "OPS = ['sometrue', 'linalg.norm']\ndef f(n): return getattr(onp, n)\n")
    assert numpy_names(source) == {("PZERO",), ("compat",), ("compat", "long"), ("msort",),
                                   ("sometrue",), ("linalg", "norm")}
    assert ("sometrue",) not in numpy_names(source.replace("getattr(onp, n)", "n"))


def test_the_table_restores_only_names_the_packages_read():
    """Nothing guessed: each restored name is read by MXNet, d2l or Horovod (all three
    installed; with HOROVOD=0 a name only Horovod reads cannot be seen)."""
    absent = [p for p in numpy_compat.READERS if importlib.util.find_spec(p) is None]
    read = {path[0] for path in _read_by_all()}
    unread = set(numpy_compat.REMOVED) - read
    if absent == ["horovod"]:
        assert unread <= {"str"}, unread        # horovod/spark/common/util.py reads np.str
    else:
        assert absent == [] and unread == set(), (absent, unread)


def _missing_without_the_table(paths):
    """The attribute paths this environment's numpy lacks when nothing is restored."""
    code = ("import json, sys, warnings; sys.meta_path[:] = [f for f in sys.meta_path "
            "if type(f).__name__ != 'BeforeMXNet']; import numpy; "
            f"sys.path.insert(0, {str(Path(numpy_compat.__file__).parent)!r}); "
            "from numpy_compat import has; paths = json.load(sys.stdin); "
            "print(json.dumps([p for p in paths if not has(numpy, p[0])]))")
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(paths),
                          capture_output=True, text=True, timeout=120, cwd="/")
    assert done.returncode == 0, done.stderr
    return {tuple(p) for p in json.loads(done.stdout)}


def test_every_name_this_numpy_lacks_is_restored():
    """Derived: of the names they read, those missing from this numpy are in the table.
    numpy 1.26 lacks the builtins' aliases, numpy 2 also constants, renamed functions,
    numpy.compat and the financial stubs."""
    import numpy
    read = _read_by_all()
    missing = _missing_without_the_table(sorted(read))
    unrestored = {p: read[p][:2] for p in missing if p[0] not in numpy_compat.REMOVED}
    assert unrestored == {}, f"numpy {numpy.__version__} lacks names MXNet & co. read"
    assert missing, "the check can fail: every supported numpy lacks some of them"
    if numpy.__version__ >= "2":
        assert {("PZERO",), ("msort",), ("sometrue",), ("compat",)} <= missing


def test_restored_names_behave_as_numpy_below_2_had_them():
    import types
    fake = types.SimpleNamespace(all=all, any=any, prod=sum, round=round,
                                 array=lambda a, subok, copy: sorted(a))
    numpy_compat.restore(fake)
    assert fake.bool is bool and fake.int is int and fake.str is str
    assert str(fake.NZERO) == "-0.0" and fake.NINF == float("-inf") and fake.PINF == fake.Inf
    assert fake.NaN != fake.NaN and fake.alltrue is all and fake.sometrue is any
    assert fake.product is sum and fake.round_ is round
    assert fake.compat.basestring is str and fake.compat.long is int
    with pytest.raises(RuntimeError, match="numpy_financial"):
        fake.pmt(0.1, 10, 100)
    assert fake.pmt.__name__ == "pmt"


def test_msort_sorts_along_the_first_axis_as_numpy_1_did():
    import numpy
    fake = type(sys)("fake")
    fake.array = numpy.array
    msort = numpy_compat.REMOVED["msort"](fake)
    a = numpy.array([[3, 1], [1, 2], [2, 0]])
    assert msort(a).tolist() == numpy.sort(a, axis=0).tolist() and a[0, 0] == 3


def test_a_name_numpy_still_has_is_never_replaced():
    import types
    own = object()
    fake = types.SimpleNamespace(bool=own, all=all, any=any, prod=sum, round=round)
    numpy_compat.restore(fake)
    assert fake.bool is own


@installed
def test_every_mxnet_module_imports_under_this_numpy():
    """All of MXNet's Python modules, not only those the course reaches, import with the
    environment's start-up alone (no PYTHONPATH, no import of ours first)."""
    code = ("import importlib, pkgutil, warnings; warnings.simplefilter('ignore'); import mxnet\n"
            "bad = []\n"
            "for m in pkgutil.walk_packages(mxnet.__path__, 'mxnet.'):\n"
            "    if m.name == 'mxnet.libmxnet' or m.name.endswith('.setup'): continue\n"
            "    try: importlib.import_module(m.name)\n"
            "    except Exception as e: bad.append(f'{m.name}: {type(e).__name__}: {e}')\n"
            "print(len(list(pkgutil.walk_packages(mxnet.__path__, 'mxnet.'))), *bad, sep='\\n')\n")
    done = _python(code, cwd="/", env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-3000:]
    count, *bad = done.stdout.strip().splitlines()
    assert int(count) > 200 and bad == []


@installed
def test_a_bare_python_c_imports_mxnet_and_trains():
    """No PYTHONPATH, no import of ours first: only the environment's start-up. Adam through
    kvstore 'device' and mxnet.numpy (which binds numpy's fallbacks) on this numpy."""
    done = _python("import mxnet as mx, numpy as np\n"
                   "net = mx.gluon.nn.Dense(2); net.initialize(mx.init.Constant(0.5))\n"
                   "t = mx.gluon.Trainer(net.collect_params(), 'adam', "
                   "{'learning_rate': 0.1}, kvstore='device')\n"
                   "losses = []\n"
                   "for _ in range(5):\n"
                   "    with mx.autograd.record(): l = (net(mx.nd.ones((4, 3))) ** 2).sum()\n"
                   "    l.backward(); t.step(4); losses.append(l.asscalar())\n"
                   "from mxnet import np as mnp\n"
                   "print(np.__version__, losses[-1] < losses[0], float(mnp.ones((2, 2)).sum()))",
                   cwd="/", env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[1:] == ["True", "4.0"]


@installed
def test_a_process_that_never_imports_mxnet_does_not_load_numpy():
    done = _python("import sys; finders = [repr(f) for f in sys.meta_path]; "
                   "print('numpy' in sys.modules, finders.index('<numpy compatibility for "
                   "mxnet>') < [i for i, f in enumerate(finders) if 'PathFinder' in f][0])",
                   cwd="/")
    assert done.stdout.split() == ["False", "True"], done.stderr


@installed
def test_the_installed_copy_is_this_file():
    copy = SITE / f"{numpy_compat.INSTALLED_NAME}.py"
    assert copy.read_text() == Path(numpy_compat.__file__).read_text(), \
        "tutorial/install/numpy_compat.py changed since set-up: run make again"
    assert not any((SITE / f"{old}.pth").exists() for old in numpy_compat.OLD_INSTALLED_NAMES)


def test_install_writes_a_module_and_a_pth_line_that_arms_it(tmp_path):
    (tmp_path / "_tutorial_numpy_aliases.pth").write_text("import nothing_here\n")
    pth = numpy_compat.install(tmp_path)
    assert pth.read_text().startswith(f"import {numpy_compat.INSTALLED_NAME};")
    assert not (tmp_path / "_tutorial_numpy_aliases.pth").exists()    # an old set-up's line
    done = _python(f"import site, sys; site.addsitedir({str(tmp_path)!r}); "
                   "import numpy; had = 'int' in vars(numpy); import mxnet; "
                   "print(had, numpy.int is int, 'PZERO' in dir(numpy))", cwd="/")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "True"]


def test_without_the_hook_numpy_has_neither_the_aliases_nor_numpy_2s_removals():
    """The reason for the hook: take it away and MXNet's np.int (1.24+) or np.PZERO (2.0)
    is missing (the test can fail)."""
    done = _python("import sys; sys.meta_path[:] = [f for f in sys.meta_path "
                   "if type(f).__name__ != 'BeforeMXNet']; import numpy; "
                   "print(hasattr(numpy, 'int'), numpy.__version__ < '2' or "
                   "not hasattr(numpy, 'PZERO'))", cwd="/")
    assert done.stdout.split() == ["False", "True"], done.stderr
