"""The setup self-check: versions, data, devices and one real training run.

Each check returns a :class:`Result` with a fix the learner can act on; nothing here
raises on a broken setup, so the report always lists every problem at once.
"""

import dataclasses
import importlib.metadata
import platform
import re
import sys

PINNED = ("mxnet", "numpy", "d2l", "ipython", "jupyterlab", "ipywidgets", "plotly",
          "scikit-learn", "mlxtend")


@dataclasses.dataclass(frozen=True)
class Result:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def pins(distribution="tutorial"):
    """{package: version} pinned with == in the course's installed requirements that apply
    to this Python (their markers evaluated), and MXNet's pin (installed on its own)."""
    from tutorial.install import pins as course_pins
    found = {}
    for req in importlib.metadata.requires(distribution) or []:
        m = re.match(r"^([A-Za-z0-9_.\-]+)\s*==\s*([^;\s]+)", req)
        if m and "extra ==" not in req and course_pins.applies(req):
            found[m.group(1).lower()] = m.group(2)
    found.update(dict(course_pins.pin(r) for r in course_pins.requirements()["cpu"]))
    return found


def check_python():
    from tutorial.install.pins import SUPPORTED, supported
    (low_major, low), (high_major, high) = SUPPORTED
    ok = supported()
    return Result("python", ok, platform.python_version(),
                  "" if ok else f"the course runs on Python {low_major}.{low} to "
                                f"{high_major}.{high}: run make PYTHON=python3.12 lab")


def _preinstalled():
    """True in an environment made by MXNET=preinstalled (NVIDIA's container)."""
    from tutorial.install.mxnet_build import site_packages
    from tutorial.install.preinstalled import PTH
    return (site_packages() / PTH).exists()


def _installed_version(name):
    """The installed version of ``name``; for mxnet, the GPU build counts too."""
    from tutorial.install.mxnet_build import CPU_DIST, GPU_DIST
    for dist in (name, GPU_DIST) if name == CPU_DIST else (name,):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pass
    return "missing"


def check_versions():
    wanted, wrong = pins(), []
    # MXNET=preinstalled keeps the interpreter's MXNet and the numpy it was built with.
    kept = ("mxnet", "numpy") if _preinstalled() else ()
    for name in (n for n in PINNED if n not in kept):
        have = _installed_version(name)
        if name in wanted and have != wanted[name]:
            wrong.append(f"{name} {have} (pinned {wanted[name]})")
    detail = "; ".join(wrong) or "all pinned versions installed"
    if kept and not wrong:
        detail += (f" (MXNet {_installed_version('mxnet')} and numpy "
                   f"{_installed_version('numpy')} are the interpreter's own)")
    return Result("versions", not wrong, detail,
                  "run `make clean-venv` then `make lab` to rebuild .venv" if wrong else "")


def check_data():
    from tutorial import data
    try:
        X, y = data.load_digits()
        X5, y5 = data.load_mnist5k()
    except data.DataError as e:
        return Result("data", False, str(e), "see the message above")
    return Result("data", True, f"digits {X.shape}, MNIST subset {X5.shape}, checksums match")


def check_devices():
    from tutorial import devices
    report = devices.gpu_report()
    unusable = [f"gpu({s.index}) {s.name}: {s.reason}" for s in report if not s.usable]
    usable = [s for s in report if s.usable]
    detail = f"{len(usable)} usable GPU(s)" + (f"; not used: {'; '.join(unusable)}" if unusable
                                               else "")
    if not usable:
        detail += "; the course runs on CPU contexts standing in for GPUs"
    return Result("devices", True, detail)


def smoke_train(ctxs, steps=60, seed=0):
    """Fit y = 2 x1 - 3.4 x2 + 4.2 with a Dense(1) layer, data split over ``ctxs``.

    Returns the final mean squared error on the training data.
    """
    import mxnet as mx
    from mxnet import autograd, gluon

    from tutorial.data import synthetic_regression

    mx.random.seed(seed)
    X, y, _, _ = synthetic_regression(256, w=[2.0, -3.4], b=4.2, noise=0.01, seed=seed)
    net = gluon.nn.Dense(1)
    net.initialize(mx.init.Normal(0.01), ctx=ctxs)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1},
                            kvstore="device")
    loss_fn = gluon.loss.L2Loss()
    Xs = gluon.utils.split_and_load(mx.nd.array(X), ctxs)
    ys = gluon.utils.split_and_load(mx.nd.array(y), ctxs)
    for _ in range(steps):
        with autograd.record():
            losses = [loss_fn(net(a), b) for a, b in zip(Xs, ys)]
        for loss in losses:
            loss.backward()
        trainer.step(len(X))
    pred = net(Xs[0].as_in_context(ctxs[0]))
    return float(((pred.reshape(-1) - ys[0]) ** 2).mean().asscalar())


def check_training():
    from tutorial import devices
    ctxs = devices.training_devices()
    try:
        mse = smoke_train(ctxs)
    except Exception as e:     # the report must list every problem, not stop at the first
        return Result("training", False, f"{type(e).__name__}: {e}",
                      "run `make clean-venv && make test` and report the message if it stays")
    ok = mse < 1e-2
    return Result("training", ok, f"Gluon on {devices.describe(ctxs)}: final MSE {mse:.4f}",
                  "" if ok else "training did not converge: rebuild .venv (make clean-venv)")


def check_widgets():
    try:
        import ipywidgets
        return Result("widgets", True, f"ipywidgets {ipywidgets.__version__}")
    except ImportError as e:
        return Result("widgets", False, str(e), "run `make lab` to install the course packages")


def run_checks():
    return [check() for check in (check_python, check_versions, check_data, check_devices,
                                  check_training, check_widgets)]


def report(results):
    lines = []
    for r in results:
        lines.append(f"{'ok ' if r.ok else 'FAIL'} {r.name:9s} {r.detail}")
        if r.fix:
            lines.append(f"     fix: {r.fix}")
    lines.append("All checks passed." if all(r.ok for r in results)
                 else "Some checks failed: follow the fixes above.")
    return "\n".join(lines)
