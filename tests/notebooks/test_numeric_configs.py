"""`make test` runs nbval a second time under NUMERIC_ALT; prove that pass is not a copy.

Each configuration the Makefile takes from tutorial/install/arch.py for this machine (x86-64 or
arm64) must give other bits than the machine's default for a small training run. If
MXNet stopped reading one of these variables (or the wheel changed), the second nbval pass
would silently test the same numerics twice; this fails instead.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tutorial.install import arch

pytestmark = pytest.mark.slow     # each configuration trains in a subprocess

ROOT = Path(__file__).resolve().parents[2]

# 30 SGD steps of a digits MLP; prints the SHA-1 of the final weights' bytes.
TRAIN = """
import hashlib, numpy as np, mxnet as mx
from mxnet import gluon, autograd, nd
from sklearn.datasets import load_digits
X, y = load_digits(return_X_y=True)
X, y = nd.array(X[:512] / 16.0), nd.array(y[:512])
mx.random.seed(0)
net = gluon.nn.HybridSequential()
net.add(gluon.nn.Dense(64, activation="relu"), gluon.nn.Dense(10))
net.initialize(mx.init.Xavier())
trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
loss = gluon.loss.SoftmaxCrossEntropyLoss()
for step in range(30):
    with autograd.record():
        l = loss(net(X), y)
    l.backward()
    trainer.step(512)
weights = b"".join(p.data().asnumpy().tobytes() for p in net.collect_params().values())
print(hashlib.sha1(weights).hexdigest())
"""

NUMERIC_VARS = ("MXNET_MKLDNN_ENABLED", "OPENBLAS_CORETYPE", "OMP_NUM_THREADS",
                "DNNL_MAX_CPU_ISA", "MKL_NUM_THREADS", "MXNET_STORAGE_FALLBACK_LOG_VERBOSE",
                "MXNET_SAFE_ACCUMULATION")


def make_nbval_lines(target):
    """The nbval command lines that ``make -n target`` would run."""
    done = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True)
    return [line for line in done.stdout.splitlines() if "--nbval" in line]


def weights_hash(settings):
    env = {k: v for k, v in os.environ.items() if k not in NUMERIC_VARS}
    env.update(settings)
    done = subprocess.run([sys.executable, "-c", TRAIN], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_each_configuration_changes_the_numerics():
    default = weights_hash({})
    assert default == weights_hash({}), "the same configuration must give the same bits"
    seen = {"default": default}
    for name in ("alt", "third"):
        bits = weights_hash(arch.numeric_settings(name))
        assert bits not in seen.values(), (
            f"the {name} configuration of {arch.machine_name()} gives the bits of "
            f"{[k for k, v in seen.items() if v == bits]}: its nbval pass checks nothing new "
            f"(tutorial/install/arch.py)")
        seen[name] = bits


def test_make_test_runs_nbval_as_the_machine_is():
    [line] = make_nbval_lines("test")
    assert not line.startswith("env ") and "MXNET_MKLDNN_ENABLED" not in line, line


def test_ci_runs_nbval_under_this_machines_alt():
    [line] = make_nbval_lines("nbval-alt")
    assert line.startswith("env " + " ".join(
        f"{k}={v}" for k, v in arch.numeric_settings("alt").items()) + " "), line
    ci = [row.split() for row in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert any(row[:1] == ["make"] and "nbval-alt" in row for row in ci)


def test_make_test_numerics_runs_nbval_under_this_machines_third():
    [line] = make_nbval_lines("test-numerics")
    assert line.startswith("env " + " ".join(
        f"{k}={v}" for k, v in arch.numeric_settings("third").items()) + " "), line
