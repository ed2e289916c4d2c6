"""`make test` runs nbval a second time under NUMERIC_ALT; prove that pass is not a copy.

Each configuration named in the Makefile must give other bits than the machine's default
for a small training run. If MXNet stopped reading one of these variables (or the wheel
changed), the second nbval pass would silently test the same numerics twice; this fails
instead.
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

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
                "DNNL_MAX_CPU_ISA", "MKL_NUM_THREADS", "MXNET_STORAGE_FALLBACK_LOG_VERBOSE")


def makefile_settings(name):
    """The VAR=value pairs of a Makefile variable (continuation lines joined)."""
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    match = re.search(rf"^{name}\s*:=(.*)$", text, re.MULTILINE)
    assert match, f"the Makefile defines no {name}"
    return dict(pair.split("=", 1) for pair in shlex.split(match.group(1)))


def weights_hash(settings):
    env = {k: v for k, v in os.environ.items() if k not in NUMERIC_VARS}
    env.update(settings)
    done = subprocess.run([sys.executable, "-c", TRAIN], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_makefile_settings_are_parsed():
    alt = makefile_settings("NUMERIC_ALT")
    assert alt["MXNET_MKLDNN_ENABLED"] == "0"
    assert set(alt) <= set(NUMERIC_VARS)


@pytest.mark.parametrize("name", ["NUMERIC_ALT", "NUMERIC_THIRD"])
def test_each_configuration_changes_the_numerics(name):
    default = weights_hash({})
    assert default == weights_hash({}), "the same configuration must give the same bits"
    assert weights_hash(makefile_settings(name)) != default, (
        f"{name} gives the default configuration's bits: the extra nbval pass checks nothing")


def test_make_test_runs_nbval_under_numeric_alt():
    done = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True)
    nbval_lines = [line for line in done.stdout.splitlines() if "--nbval" in line]
    assert len(nbval_lines) == 2, done.stdout
    assert "MXNET_MKLDNN_ENABLED=0" in nbval_lines[1] and \
        "MXNET_MKLDNN_ENABLED" not in nbval_lines[0]
